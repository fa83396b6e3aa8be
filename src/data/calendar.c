/* Civil-date conversions (see calendar.h). The algorithms are Howard
 * Hinnant's "chrono-Compatible Low-Level Date Algorithms": they work on eras
 * of 400 years (146097 days) so every year, negative ones included, is
 * handled without tables or loops. */
#include "data/calendar.h"

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t fc_days_from_civil(int64_t year, int month, int day) {
    year -= month <= 2;
    int64_t era = floor_div(year, 400);
    int64_t yoe = year - era * 400;                                  /* [0, 399] */
    int64_t mp = month > 2 ? month - 3 : month + 9;                  /* March = 0 */
    int64_t doy = (153 * mp + 2) / 5 + day - 1;                      /* [0, 365] */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;             /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

void fc_civil_from_days(int64_t days, int64_t *year, int *month, int *day) {
    days += 719468;
    int64_t era = floor_div(days, 146097);
    int64_t doe = days - era * 146097;                               /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);           /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                                /* [0, 11] */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

int fc_is_leap_year(int64_t year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int fc_days_in_month(int64_t year, int month) {
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month == 2 && fc_is_leap_year(year)) return 29;
    return days[month - 1];
}

fc_civil fc_civil_from_seconds(int64_t seconds) {
    fc_civil c;
    int64_t days = floor_div(seconds, FC_SECONDS_PER_DAY);
    c.second = seconds - days * FC_SECONDS_PER_DAY;
    fc_civil_from_days(days, &c.year, &c.month, &c.day);
    return c;
}

int64_t fc_seconds_from_civil(const fc_civil *c) {
    return fc_days_from_civil(c->year, c->month, c->day) * FC_SECONDS_PER_DAY + c->second;
}
