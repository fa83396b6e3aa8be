/* Calendar arithmetic, frequency aliases, calendar stepping and frequency
 * inference. Expected dates come from Python's datetime and pandas offsets
 * (MonthEnd, MonthBegin, DateOffset(months=k)), written down by hand. */
#include "check.h"

#include "data/calendar.h"
#include "data/dataset.h"
#include "data/ds_text.h"
#include "data/freq.h"

static void test_days_from_civil(void) {
    /* (datetime.date(y, m, d) - datetime.date(1970, 1, 1)).days */
    static const struct { int y, m, d; int64_t days; } known[] = {
        {1970, 1, 1, 0},        {2000, 1, 1, 10957},  {2000, 3, 1, 11017},
        {1900, 3, 1, -25508},   {1, 1, 1, -719162},   {1600, 2, 29, -135081},
        {9999, 12, 31, 2932896}, {1949, 1, 1, -7670}, {2013, 9, 1, 15949},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        CHECK_MSG(fc_days_from_civil(known[i].y, known[i].m, known[i].d) == known[i].days,
                  "%04d-%02d-%02d", known[i].y, known[i].m, known[i].d);
        int64_t y;
        int m, d;
        fc_civil_from_days(known[i].days, &y, &m, &d);
        CHECK(y == known[i].y && m == known[i].m && d == known[i].d);
    }
    /* Walking day by day from 1600-01-01 to 2400-12-31 visits every date of
     * the Gregorian calendar once, in order (month lengths, leap rules). */
    int64_t day = fc_days_from_civil(1600, 1, 1), bad = 0;
    for (int64_t y = 1600; y <= 2400; y++)
        for (int m = 1; m <= 12; m++) {
            int len = m == 2 ? ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28)
                             : (m == 4 || m == 6 || m == 9 || m == 11) ? 30 : 31;
            CHECK(fc_days_in_month(y, m) == len);
            for (int d = 1; d <= len; d++, day++) {
                int64_t yy;
                int mm, dd;
                fc_civil_from_days(day, &yy, &mm, &dd);
                bad += fc_days_from_civil(y, m, d) != day || yy != y || mm != m || dd != d;
            }
        }
    CHECK_MSG(bad == 0, "%lld dates differ", (long long)bad);
}

static void test_ds_parse_and_format(void) {
    fc_ds_kind kind;
    int64_t v;
    char buf[40];
    CHECK(fc_ds_parse("2000-06-05 00:30:00", 19, &kind, &v) && kind == FC_DS_DATETIME && v == 960165000);
    CHECK(fc_ds_parse("1960-12-01T23:59:59", 19, &kind, &v) && v == -286588801);
    fc_ds_format(FC_DS_DATETIME, v, buf, sizeof buf);
    CHECK(strcmp(buf, "1960-12-01 23:59:59") == 0);
    fc_ds_format(FC_DS_DATE, -7670LL * 86400, buf, sizeof buf);
    CHECK(strcmp(buf, "1949-01-01") == 0);
    fc_ds_format(FC_DS_INDEX, 17, buf, sizeof buf);
    CHECK(strcmp(buf, "17") == 0);
    CHECK(fc_ds_parse(" -42 ", 5, &kind, &v) && kind == FC_DS_INDEX && v == -42);
    static const char *bad[] = {"", "1.5", "2000-1-05", "2000-02-30", "2000-01-01 24:00", "2000-01-01 10:60",
                                "2000-01-01 10:00:60", "2000-01-01X10:00", "2000-01-01 10:00Z", "1e3",
                                "9223372036854775808", "-9223372036854775809", "12345678901234567890",
                                "2000/01/01", "2000-01-01 1:00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(!fc_ds_parse(bad[i], strlen(bad[i]), &kind, &v), "accepted '%s'", bad[i]);
    /* Every int64 reads back as written (predict writes up to INT64_MAX). */
    static const char *edge[] = {"9223372036854775807", "-9223372036854775808", "1234567890123456789"};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        CHECK_MSG(fc_ds_parse(edge[i], strlen(edge[i]), &kind, &v) && kind == FC_DS_INDEX, "'%s'", edge[i]);
        fc_ds_format(FC_DS_INDEX, v, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, edge[i]) == 0, "'%s' -> %s", edge[i], buf);
    }
}

static void test_freq_parse(void) {
    static const struct { const char *alias; fc_freq_unit unit; int64_t step; int month_end; const char *name; } ok[] = {
        {"D", FC_FREQ_FIXED, 86400, 0, "D"},        {"W", FC_FREQ_FIXED, 604800, 0, "W"},
        {"h", FC_FREQ_FIXED, 3600, 0, "h"},         {"H", FC_FREQ_FIXED, 3600, 0, "h"},
        {"2h", FC_FREQ_FIXED, 7200, 0, "2h"},       {"30min", FC_FREQ_FIXED, 1800, 0, "30min"},
        {"T", FC_FREQ_FIXED, 60, 0, "min"},         {"15T", FC_FREQ_FIXED, 900, 0, "15min"},
        {"60min", FC_FREQ_FIXED, 3600, 0, "h"},     {"15s", FC_FREQ_FIXED, 15, 0, "15s"},
        {"S", FC_FREQ_FIXED, 1, 0, "s"},            {"7D", FC_FREQ_FIXED, 604800, 0, "W"},
        {"MS", FC_FREQ_MONTHS, 1, 0, "MS"},         {"QS", FC_FREQ_MONTHS, 3, 0, "QS"},
        {"YS", FC_FREQ_MONTHS, 12, 0, "YS"},        {"AS", FC_FREQ_MONTHS, 12, 0, "YS"},
        {"2MS", FC_FREQ_MONTHS, 2, 0, "2MS"},       {"ME", FC_FREQ_MONTHS, 1, 1, "ME"},
        {"M", FC_FREQ_MONTHS, 1, 1, "ME"},          {"QE", FC_FREQ_MONTHS, 3, 1, "QE"},
        {"Q", FC_FREQ_MONTHS, 3, 1, "QE"},          {"YE", FC_FREQ_MONTHS, 12, 1, "YE"},
        {"Y", FC_FREQ_MONTHS, 12, 1, "YE"},         {"A", FC_FREQ_MONTHS, 12, 1, "YE"},
        {"B", FC_FREQ_BDAYS, 1, 0, "B"},            {"2B", FC_FREQ_BDAYS, 2, 0, "2B"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        fc_freq f;
        fc_status st = fc_freq_parse(ok[i].alias, FC_DS_DATETIME, &f);
        CHECK_MSG(st == FC_OK && f.unit == ok[i].unit && f.step == ok[i].step &&
                  f.month_end == ok[i].month_end && strcmp(f.name, ok[i].name) == 0,
                  "'%s' -> unit %d step %lld end %d name %s", ok[i].alias, f.unit,
                  (long long)f.step, f.month_end, f.name);
        fc_freq again;  /* model files store the name: it must parse back to the same grid */
        CHECK_MSG(fc_freq_parse(f.name, FC_DS_DATETIME, &again) == FC_OK && again.unit == f.unit &&
                  again.step == f.step && again.month_end == f.month_end, "'%s'", f.name);
    }
    fc_freq f;
    CHECK(fc_freq_parse("1", FC_DS_INDEX, &f) == FC_OK && f.step == 1 && strcmp(f.name, "1") == 0);
    CHECK(fc_freq_parse("2", FC_DS_INDEX, &f) == FC_OK && f.step == 2 && strcmp(f.name, "2") == 0);
    static const char *unknown[] = {"fortnight", "0", "0D", "ms", "-1", "1.5h", "", "b", "W-SUNDAY"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK_MSG(fc_freq_parse(unknown[i], FC_DS_DATE, &f) == FC_ERR_INVALID, "accepted '%s'", unknown[i]);
        CHECK_CONTAINS(fc_last_error(), "unknown frequency");
        CHECK_CONTAINS(fc_last_error(), "[n]MS, [n]QS, [n]YS, [n]ME");
    }
    CHECK(fc_freq_parse(NULL, FC_DS_DATE, &f) == FC_ERR_INVALID);
    CHECK(fc_freq_parse("D", FC_DS_INDEX, &f) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "integer index");
    CHECK(fc_freq_parse("3", FC_DS_DATE, &f) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "integer step");
}

static int64_t date_seconds(const char *text) {
    fc_ds_kind kind;
    int64_t v = 0;
    CHECK_MSG(fc_ds_parse(text, strlen(text), &kind, &v), "bad date %s", text);
    return v;
}

static void check_advance(const char *alias, const char *from, int64_t k, const char *expected) {
    fc_freq f;
    char buf[40];
    CHECK(fc_freq_parse(alias, FC_DS_DATETIME, &f) == FC_OK);
    fc_ds_format(strlen(expected) > 10 ? FC_DS_DATETIME : FC_DS_DATE,
                 fc_freq_advance(&f, date_seconds(from), k), buf, sizeof buf);
    CHECK_MSG(strcmp(buf, expected) == 0, "%s + %lld %s = %s, expected %s", from, (long long)k,
              alias, buf, expected);
}

static void test_freq_advance(void) {
    check_advance("ME", "2000-01-31", 1, "2000-02-29");   /* pandas MonthEnd */
    check_advance("ME", "1999-01-31", 1, "1999-02-28");
    check_advance("ME", "2000-02-29", 1, "2000-03-31");
    check_advance("ME", "2000-03-31", -1, "2000-02-29");
    check_advance("ME", "2000-12-31", -10, "2000-02-29");
    check_advance("QE", "1999-11-30", 1, "2000-02-29");
    check_advance("MS", "2000-01-01", -13, "1998-12-01");  /* pandas MonthBegin */
    check_advance("MS", "2000-02-29", 12, "2001-02-28");   /* DateOffset(months=12) */
    check_advance("MS", "2000-02-29", 48, "2004-02-29");
    check_advance("QS", "2000-11-01", 1, "2001-02-01");
    check_advance("YS", "2000-01-01", -3, "1997-01-01");
    check_advance("MS", "2000-01-01 06:00", 1, "2000-02-01 06:00:00");
    check_advance("30min", "2000-06-05 23:30", 1, "2000-06-06 00:00:00");
    check_advance("30min", "2000-06-05 23:30", -2, "2000-06-05 22:30:00");
    check_advance("D", "2000-02-28", 2, "2000-03-01");
    check_advance("D", "1900-02-28", 1, "1900-03-01");
    check_advance("W", "1970-01-01", -1, "1969-12-25");
    fc_freq f;
    CHECK(fc_freq_parse("2", FC_DS_INDEX, &f) == FC_OK);
    CHECK(fc_freq_advance(&f, 5, 3) == 11 && fc_freq_advance(&f, 5, -4) == -3);
}

/* Integer steps of 16+ digits (issue 10): parsed whole, never cut in the
 * name a model file stores; counts that overflow are refused. */
static void test_freq_long_steps(void) {
    static const char *steps[] = {"1000000000000000", "1234567890123456789", "9223372036854775807"};
    char name[FC_FREQ_NAME_MAX];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        fc_freq f, again;
        CHECK_MSG(fc_freq_parse(steps[i], FC_DS_INDEX, &f) == FC_OK, "'%s': %s", steps[i], fc_last_error());
        fc_freq_format(&f, FC_DS_INDEX, name, sizeof name);
        CHECK_MSG(strcmp(name, steps[i]) == 0, "'%s' formatted as '%s'", steps[i], name);
        CHECK(fc_freq_parse(name, FC_DS_INDEX, &again) == FC_OK && again.step == f.step);
        /* the fixed-size name is empty rather than another, cut, frequency */
        CHECK_MSG(f.name[0] == '\0' || strcmp(f.name, steps[i]) == 0, "name '%s'", f.name);
    }
    fc_freq f;
    CHECK(fc_freq_parse("9223372036854775808", FC_DS_INDEX, &f) == FC_ERR_INVALID);
    CHECK(fc_freq_parse("153722867280912931min", FC_DS_DATETIME, &f) == FC_ERR_INVALID);
    CHECK(fc_freq_parse("153722867280912930min", FC_DS_DATETIME, &f) == FC_OK);
    fc_freq_format(&f, FC_DS_DATETIME, name, sizeof name);
    CHECK_MSG(strcmp(name, "153722867280912930min") == 0, "%s", name);
    CHECK(fc_freq_parse("99999999999999999999MS", FC_DS_DATE, &f) == FC_ERR_INVALID);
}

/* Future ds: an overflow of int64, or a date past year 9999, is refused,
 * never wrapped. */
static void test_freq_advance_checked(void) {
    fc_freq f;
    int64_t out = 0;
    CHECK(fc_freq_parse("1000000000000000000", FC_DS_INDEX, &f) == FC_OK);
    CHECK(fc_freq_advance_checked(&f, FC_DS_INDEX, 7000000000000000000, 2, &out));
    CHECK(out == 9000000000000000000);
    CHECK(!fc_freq_advance_checked(&f, FC_DS_INDEX, 7000000000000000000, 3, &out));
    CHECK(fc_freq_advance(&f, 7000000000000000000, 3) == INT64_MAX);   /* saturates, no wrap */
    CHECK(fc_freq_parse("1", FC_DS_INDEX, &f) == FC_OK);
    CHECK(fc_freq_advance_checked(&f, FC_DS_INDEX, INT64_MAX - 1, 1, &out) && out == INT64_MAX);
    CHECK(!fc_freq_advance_checked(&f, FC_DS_INDEX, INT64_MAX - 1, 2, &out));
    CHECK(fc_freq_parse("YS", FC_DS_DATE, &f) == FC_OK);
    CHECK(fc_freq_advance_checked(&f, FC_DS_DATE, date_seconds("9998-01-01"), 1, &out) &&
          out == date_seconds("9999-01-01"));
    CHECK(!fc_freq_advance_checked(&f, FC_DS_DATE, date_seconds("9998-01-01"), 2, &out));
    CHECK(!fc_freq_advance_checked(&f, FC_DS_DATE, date_seconds("2000-01-01"), INT64_MAX / 2, &out));
    CHECK(fc_freq_parse("D", FC_DS_DATE, &f) == FC_OK);
    CHECK(!fc_freq_advance_checked(&f, FC_DS_DATE, date_seconds("9999-12-31"), 1, &out));

    const char *csv = "unique_id,ds,y\na,9223372036854775800,1\na,9223372036854775802,2\n"
                      "b,0,1\nb,2,1\n";
    fc_dataset *d = NULL;
    CHECK_MSG(fc_dataset_load_buffer("edge.csv", csv, strlen(csv), NULL, &d) == FC_OK, "%s", fc_last_error());
    if (!d) return;
    CHECK(fc_freq_check_future(d, &d->freq, 2) == FC_OK);   /* ...04, ...06 <= INT64_MAX ...07 */
    CHECK(fc_freq_check_future(d, &d->freq, 3) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "edge.csv");
    CHECK_CONTAINS(fc_last_error(), "series 'a'");
    CHECK_CONTAINS(fc_last_error(), "9223372036854775802");
    CHECK_CONTAINS(fc_last_error(), "3 steps of 2");
    fc_dataset_free(&d);
}

/* Inference through the loader: the name of the frequency found. */
static void check_inferred(const char *csv, const char *expected) {
    fc_dataset *d = NULL;
    fc_status st = fc_dataset_load_buffer("infer.csv", csv, strlen(csv), NULL, &d);
    CHECK_MSG(st == FC_OK, "%s", fc_last_error());
    if (!d) return;
    CHECK_MSG(strcmp(d->freq.name, expected) == 0, "inferred %s, expected %s", d->freq.name, expected);
    fc_dataset_free(&d);
}

static void test_freq_infer(void) {
    check_inferred("unique_id,ds,y\na,2000-01-31,1\na,2000-02-29,1\na,2000-03-31,1\n", "ME");
    check_inferred("unique_id,ds,y\na,2000-03-31,1\na,2000-06-30,1\na,2000-09-30,1\n", "QE");
    check_inferred("unique_id,ds,y\na,2000-12-31,1\na,2001-12-31,1\n", "YE");
    check_inferred("unique_id,ds,y\na,1990-01-01,1\na,1991-01-01,1\nb,2005-01-01,1\nb,2006-01-01,1\n", "YS");
    check_inferred("unique_id,ds,y\na,2000-01-01,1\na,2000-03-01,1\na,2000-05-01,1\n", "2MS");
    check_inferred("unique_id,ds,y\na,2000-01-01 00:00,1\na,2000-01-01 01:00,1\n", "h");
    check_inferred("unique_id,ds,y\na,2000-01-01 00:00,1\na,2000-01-01 00:15,1\na,2000-01-01 00:30,1\n", "15min");
    check_inferred("unique_id,ds,y\na,2000-01-01 00:00:00,1\na,2000-01-01 00:00:10,1\n", "10s");
    /* Month starts at a time other than midnight are not a month grid. */
    check_inferred("unique_id,ds,y\na,2000-01-01 06:00,1\na,2000-01-02 06:00,1\n", "D");
    /* Business days: mostly 1 day apart, 3 over weekends: daily, the
     * weekends filled as missing points. */
    check_inferred("unique_id,ds,y\na,2000-01-06,1\na,2000-01-07,1\na,2000-01-10,1\na,2000-01-11,1\n", "D");
    /* A tie between steps 2 and 4 goes to the smaller step. */
    check_inferred("unique_id,ds,y\na,0,1\na,2,1\nb,0,1\nb,4,1\n", "2");
}

/* Business days (pandas' B): expected dates from pandas, Timestamp(d) + k
 * * offsets.BDay(), written down by hand. */
static void test_freq_bdays(void) {
    check_advance("B", "2024-01-05", 1, "2024-01-08");    /* Friday -> Monday */
    check_advance("B", "2024-01-08", -1, "2024-01-05");
    check_advance("B", "2024-01-03", -7, "2023-12-25");
    check_advance("B", "1970-01-01", 2, "1970-01-05");    /* the epoch is a Thursday */
    check_advance("B", "1969-12-26", 1, "1969-12-29");
    check_advance("B", "1900-03-02", 1, "1900-03-05");
    check_advance("B", "2000-02-28", 5, "2000-03-06");
    check_advance("2B", "2024-01-04", 1, "2024-01-08");
    check_advance("B", "2024-01-05 09:30", 1, "2024-01-08 09:30:00");
    fc_freq f;
    int64_t steps = 0;
    CHECK(fc_freq_parse("B", FC_DS_DATE, &f) == FC_OK);
    CHECK(fc_freq_is_anchor(&f, date_seconds("2024-01-05")) && !fc_freq_is_anchor(&f, date_seconds("2024-01-06")) &&
          !fc_freq_is_anchor(&f, date_seconds("2024-01-07")));
    CHECK(fc_freq_steps_between(&f, date_seconds("2024-01-05"), date_seconds("2024-01-08"), &steps) && steps == 1);
    CHECK(fc_freq_steps_between(&f, date_seconds("2023-12-29"), date_seconds("2024-01-08"), &steps) && steps == 6);
    CHECK(!fc_freq_steps_between(&f, date_seconds("2024-01-05"), date_seconds("2024-01-06"), &steps));
    CHECK(!fc_freq_steps_between(&f, date_seconds("2024-01-05"), date_seconds("2024-01-08 01:00"), &steps));

    /* Weekdays only: a weekend is no gap; a missing Tuesday is one filled point. */
    const char *csv = "unique_id,ds,y\na,2024-01-04,1\na,2024-01-05,2\na,2024-01-08,3\na,2024-01-10,4\n";
    fc_load_options opt = {.freq = "B"};
    fc_dataset *d = NULL;
    CHECK_MSG(fc_dataset_load_buffer("b.csv", csv, strlen(csv), &opt, &d) == FC_OK, "%s", fc_last_error());
    if (d) {
        CHECK_MSG(d->n_rows == 5 && d->mask[3] == 0 && d->ds[3] == date_seconds("2024-01-09"), "%zu rows", d->n_rows);
        CHECK(d->freq.unit == FC_FREQ_BDAYS && strcmp(d->freq.name, "B") == 0);
        fc_dataset_free(&d);
        d = NULL;
    }
    const char *weekend = "unique_id,ds,y\na,2024-01-05,1\na,2024-01-06,2\n";
    CHECK(fc_dataset_load_buffer("w.csv", weekend, strlen(weekend), &opt, &d) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "2024-01-06");
    CHECK_CONTAINS(fc_last_error(), "w.csv:3:");
    CHECK_CONTAINS(fc_last_error(), "a weekday (Monday to Friday)");
    const char *first = "unique_id,ds,y\na,2024-01-07,1\na,2024-01-08,2\n";
    CHECK(fc_dataset_load_buffer("w.csv", first, strlen(first), &opt, &d) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "first point of series");
    CHECK_CONTAINS(fc_last_error(), "a weekday (Monday to Friday)");
}

/* pandas' anchored weeks: W-SUN .. W-SAT are weeks on that day (pd.date_range(
 * "2024-01-07", periods=3, freq="W-SUN") is the 7th, 14th and 21st); the
 * first point off that day is named; W stays any weekday's 7 days. */
static void test_freq_anchored_weeks(void) {
    check_advance("W-SUN", "2024-01-07", 1, "2024-01-14");
    check_advance("2W-MON", "2024-01-08", 1, "2024-01-22");
    check_advance("W-THU", "1970-01-01", -1, "1969-12-25");   /* the epoch is a Thursday */
    static const char *const days[7] = {"2024-01-08", "2024-01-09", "2024-01-10", "2024-01-11", "2024-01-12",
                                        "2024-01-13", "2024-01-14"};   /* Monday .. Sunday */
    static const char *const names[7] = {"W-MON", "W-TUE", "W-WED", "W-THU", "W-FRI", "W-SAT", "W-SUN"};
    for (int d = 0; d < 7; d++) {
        fc_freq f;
        CHECK(fc_freq_parse(names[d], FC_DS_DATE, &f) == FC_OK && f.weekday == d + 1 && !strcmp(f.name, names[d]));
        for (int e = 0; e < 7; e++)
            CHECK_MSG(fc_freq_is_anchor(&f, date_seconds(days[e])) == (d == e), "%s on %s", names[d], days[e]);
        CHECK(fc_freq_is_anchor(&f, date_seconds(days[d]) - 7 * 86400 * 3000));   /* before 1970 too */
    }
    fc_freq f;
    CHECK(fc_freq_parse("3W-FRI", FC_DS_DATE, &f) == FC_OK && f.step == 3 * 604800 && !strcmp(f.name, "3W-FRI"));
    CHECK(fc_freq_parse("W", FC_DS_DATE, &f) == FC_OK && f.weekday == 0 && fc_freq_is_anchor(&f, date_seconds(days[2])));
    CHECK(fc_freq_parse("W-XYZ", FC_DS_DATE, &f) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "W-MON .. [n]W-SUN");
    CHECK(fc_freq_parse("W-SUN", FC_DS_INDEX, &f) == FC_ERR_INVALID);
    fc_load_options opt = {.freq = "W-SUN"};
    fc_dataset *d = NULL;
    const char *csv = "unique_id,ds,y\na,2024-01-07,1\na,2024-01-21,3\n";   /* a missing Sunday: one filled point */
    CHECK_MSG(fc_dataset_load_buffer("w.csv", csv, strlen(csv), &opt, &d) == FC_OK, "%s", fc_last_error());
    if (d) {
        CHECK(d->n_rows == 3 && d->mask[1] == 0 && !strcmp(d->freq.name, "W-SUN"));
        fc_dataset_free(&d);
        d = NULL;
    }
    const char *monday = "unique_id,ds,y\na,2024-01-08,1\na,2024-01-15,2\n";
    CHECK(fc_dataset_load_buffer("w.csv", monday, strlen(monday), &opt, &d) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "w.csv:2:");
    CHECK_CONTAINS(fc_last_error(), "is not a Sunday, as frequency W-SUN requires");
}

int main(void) {
    test_freq_bdays();
    test_freq_anchored_weeks();
    test_days_from_civil();
    test_ds_parse_and_format();
    test_freq_long_steps();
    test_freq_advance_checked();
    test_freq_parse();
    test_freq_advance();
    test_freq_infer();
    return CHECK_DONE();
}
