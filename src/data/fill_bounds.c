/* The bounds a caller puts on the points gap filling makes (see
 * raw_table.h, fc_load_options.max_points and max_fill_bytes).
 *
 * A file's size and row count say nothing of them: two rows 57 years apart
 * on a half-hourly grid are a million points, 17 MB loaded whole, from a
 * 99-byte request. So the bounds are checked against the lengths after
 * filling, which both loaders know from each series' first and last ds
 * before they allocate, and the message names the series that fills the
 * most: the one to look at for a mistyped timestamp. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/memory_stats.h"
#include "data/raw_table.h"

/* What passed which bound, into buf; 0 when within both. */
static int bound_passed(const fc_raw_table *t, size_t rows, size_t points, char *buf, size_t cap) {
    const fc_load_options *o = &t->opt;
    const char *by = o->bound_name ? o->bound_name : "the caller's bound";
    size_t per_point = fc_dataset_point_bytes(t->n_exog), filled = points > rows ? points - rows : 0;
    if (o->max_points && points > o->max_points) {
        snprintf(buf, cap, "the data's %zu points after gap filling pass the limit of %zu (%s)", points,
                 o->max_points, by);
        return 1;
    }
    if (o->max_fill_bytes && filled > o->max_fill_bytes / per_point) {
        char need[32], room[32];
        size_t bytes = filled > SIZE_MAX / per_point ? SIZE_MAX : filled * per_point;
        snprintf(buf, cap, "the %zu points gap filling adds would take %s at %zu bytes a point, more than the %s "
                 "left by %s", filled, fc_bytes_text(bytes, need, sizeof need), per_point,
                 fc_bytes_text(o->max_fill_bytes, room, sizeof room), by);
        return 1;
    }
    return 0;
}

fc_status fc_fill_bounds_check(const fc_raw_table *t, const fc_freq *f, size_t rows, size_t points,
                               const fc_series_span *widest) {
    char bound[256], name[64], from[40], to[40], freq[FC_FREQ_NAME_MAX];
    if (!bound_passed(t, rows, points, bound, sizeof bound)) return FC_OK;
    fc_quote_field(widest->name, strlen(widest->name), name, sizeof name);
    fc_ds_format(t->kind, widest->first.ds, from, sizeof from);
    fc_ds_format(t->kind, widest->last.ds, to, sizeof to);
    fc_freq_format(f, t->kind, freq, sizeof freq);
    return fc_raw_error(t, FC_ERR_MEMORY, widest->last.line, t->col_ds,
                        "series %s runs from %s (line %zu) to %s on the %s grid: its %zu rows are %zu points after "
                        "gap filling; %s; check the timestamps or pass a coarser frequency", name, from,
                        widest->first.line, to, freq, widest->rows, widest->points, bound);
}
