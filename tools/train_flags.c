/* The flags of `fcast train` and `fcast plan` (see train_flags.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "train_flags.h"

/* "nhits | nbeats | ...": the library's model kinds, for --model's help. */
const char *train_flags_model_kinds(const char *separator) {
    static char list[2][256];
    char *buf = list[strcmp(separator, " | ") != 0];
    size_t n = 0;
    fcast_kind_info kind;
    buf[0] = '\0';
    for (size_t k = 0; fcast_config_model_kind(k, &kind) && n < sizeof list[0]; k++)
        n += (size_t)snprintf(buf + n, sizeof list[0] - n, "%s%s", k ? separator : "", kind.key);
    return buf;
}

/* Row i's slot in a, its default (the table's text) written there. */
static void *key_slot(train_flags *a, size_t i, const fcast_train_key_info *k) {
    const char *d = k->default_text;
    switch (k->kind) {
    case FCAST_KEY_COUNT: a->counts[i] = d ? (size_t)strtoull(d, NULL, 10) : ARG_SIZE_UNSET; return &a->counts[i];
    case FCAST_KEY_INTEGER: a->integers[i] = d ? strtol(d, NULL, 10) : ARG_INT_UNSET; return &a->integers[i];
    case FCAST_KEY_NUMBER: a->numbers[i] = d ? strtod(d, NULL) : NAN; return &a->numbers[i];
    case FCAST_KEY_SWITCH: a->switches[i] = 0; return &a->switches[i];
    case FCAST_KEY_TEXT: case FCAST_KEY_FILE_IN: case FCAST_KEY_FILE_OUT: a->texts[i] = d; return &a->texts[i];
    }
    abort();   /* a kind of fcast.h this table does not know: a bug */
}

static arg_kind flag_kind(fcast_key_kind kind) {
    switch (kind) {
    case FCAST_KEY_COUNT: return ARG_SIZE;
    case FCAST_KEY_INTEGER: return ARG_INT;
    case FCAST_KEY_NUMBER: return ARG_DOUBLE;
    case FCAST_KEY_SWITCH: return ARG_FLAG;
    case FCAST_KEY_TEXT: return ARG_STR;
    case FCAST_KEY_FILE_IN: return ARG_IN;
    case FCAST_KEY_FILE_OUT: return ARG_OUT;
    }
    abort();
}

/* The flag of training key i; "verbose" is the CLI's --quiet (progress is
 * shown unless told not to). */
static arg_spec key_spec(train_flags *a, size_t i, const fcast_train_key_info *k, int out_required) {
    void *slot = key_slot(a, i, k);
    if (!strcmp(k->key, "verbose")) return (arg_spec){"quiet", ARG_FLAG, &a->quiet, NULL, "no progress output", 0, 0};
    int required = out_required && !strcmp(k->key, "out");
    return (arg_spec){k->key, flag_kind(k->kind), slot, k->metavar, k->help, required, 0};
}

/* Appends the flags of the training keys whose role is in `roles` (a bit
 * per fcast_key_role) at specs[*n]. */
static void append_keys(train_flags *a, arg_spec *specs, size_t *n, unsigned roles, int out_required) {
    fcast_train_key_info k;
    for (size_t i = 0; fcast_config_train_key(i, &k); i++) {
        if (i >= TRAIN_KEYS_MAX || *n + 1 >= FC_TRAIN_MAX_SPECS) abort();   /* a table too small: a bug */
        int many = !strcmp(k.key, "parallel");   /* for runs of several trainings, not fcast train's one */
        if (roles & (1u << k.role) && !(many && out_required)) specs[(*n)++] = key_spec(a, i, &k, out_required);
    }
    memset(&specs[*n], 0, sizeof *specs);
}

void train_flags_init(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int out_required) {
    *a = (train_flags){0};
    arch_flags_init(&a->arch);
    memset(specs, 0, FC_TRAIN_MAX_SPECS * sizeof *specs);
    specs[0] = (arg_spec){"data", ARG_IN, &a->data, "FILE", "training data: long CSV with unique_id, ds, y", 1, 0};
    specs[1] = (arg_spec){"model", ARG_STR, &a->model, "NAME", train_flags_model_kinds(" | "), 1, 0};
    specs[2] = (arg_spec){"h", ARG_SIZE, &a->h, "H", "forecast horizon", 1, 0};
    specs[3] = (arg_spec){"input-size", ARG_SIZE, &a->input_size, "L", "input window length", 1, 0};
    size_t n = 4;
    unsigned roles = 1u << FCAST_KEY_KEPT | 1u << FCAST_KEY_RUN | (out_required ? 1u << FCAST_KEY_TRAIN_RUN : 0);
    append_keys(a, specs, &n, roles, out_required);
    if (arch_flags_specs(&a->arch, specs + n, FC_TRAIN_MAX_SPECS - n)) abort();   /* a table too small: a bug */
}

void train_flags_append_intervals(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    size_t n = 0;
    while (specs[n].name) n++;
    append_keys(a, specs, &n, 1u << FCAST_KEY_INTERVALS, 1);
}

/* Row i of the table named key, of one of the kinds given; abort when none:
 * a command asking for a key the library does not have is a bug. */
static size_t key_row(const char *key, fcast_key_kind k1, fcast_key_kind k2, fcast_key_kind k3) {
    fcast_train_key_info k;
    for (size_t i = 0; fcast_config_train_key(i, &k); i++)
        if (!strcmp(k.key, key) && (k.kind == k1 || k.kind == k2 || k.kind == k3)) return i;
    fprintf(stderr, "fcast: internal error: no training key '%s' of that kind\n", key);
    abort();
}

const char **train_flags_text(const train_flags *a, const char *key) {
    return (const char **)&a->texts[key_row(key, FCAST_KEY_TEXT, FCAST_KEY_FILE_IN, FCAST_KEY_FILE_OUT)];
}
size_t *train_flags_count(const train_flags *a, const char *key) {
    return (size_t *)&a->counts[key_row(key, FCAST_KEY_COUNT, FCAST_KEY_COUNT, FCAST_KEY_COUNT)];
}
long *train_flags_integer(const train_flags *a, const char *key) {
    return (long *)&a->integers[key_row(key, FCAST_KEY_INTEGER, FCAST_KEY_INTEGER, FCAST_KEY_INTEGER)];
}

const char *const *train_flags_operations(void) {
    static const char *names[TRAIN_KEYS_MAX + 1];
    if (names[0]) return names;
    size_t n = 0;
    fcast_train_key_info k;
    for (size_t i = 0; fcast_config_train_key(i, &k) && n < TRAIN_KEYS_MAX; i++)
        if (k.role == FCAST_KEY_RUN || k.role == FCAST_KEY_TRAIN_RUN) names[n++] = strcmp(k.key, "verbose") ? k.key : "quiet";
    return names;
}

/* A parsed flag's value as text, as fcast_config_set takes it. */
static const char *flag_text(const arg_spec *s, char *buf, size_t cap) {
    switch (s->kind) {
    case ARG_STR: case ARG_IN: case ARG_IN_LIST: case ARG_OUT: return *(const char *const *)s->dest;
    case ARG_INT: snprintf(buf, cap, "%ld", *(const long *)s->dest); break;
    case ARG_SIZE: snprintf(buf, cap, "%zu", *(const size_t *)s->dest); break;
    case ARG_DOUBLE: snprintf(buf, cap, "%.17g", *(const double *)s->dest); break;
    case ARG_FLAG: return *(const int *)s->dest ? "on" : "off";
    }
    return buf;
}

/* Flags that make the configuration (fcast_config_new) or are not keys. */
static int not_a_key(const char *name) {
    static const char *const names[] = {"data", "model", "h", "input-size", "quiet", NULL};
    for (const char *const *n = names; *n; n++)
        if (!strcmp(*n, name)) return 1;
    return 0;
}

static const char *key_of(const char *name, const char *const *renamed) {
    for (; renamed && renamed[0]; renamed += 2)
        if (!strcmp(renamed[0], name)) return renamed[1];
    return name;
}

/* The exit code for a refused setting: a usage error when the value is not
 * one of the flag's choices. */
static int refused(const char *command, const char *key) {
    int choices = !strcmp(key, "model") || !strcmp(key, "scaler") || !strcmp(key, "loss");
    if (command) fprintf(stderr, "fcast %s: %s\n", command, fc_last_error());
    return choices ? 2 : cli_exit_code(fc_last_status());
}

int train_flags_config(const char *command, const train_flags *a, const arg_spec *specs,
                       const char *const *renamed, fcast_config **out) {
    *out = NULL;
    if (*train_flags_text(a, "stat-exog") && !*train_flags_text(a, "stat-exog-file")) {
        if (command)
            fprintf(stderr, "fcast %s: --stat-exog names columns of the static file: give it with --stat-exog-file\n",
                    command);
        return 4;
    }
    fcast_config *c = NULL;
    if (fcast_config_new(a->model, 1, 1, &c) != FC_OK) return refused(command, "model");   /* the name alone */
    fcast_config_free(c);
    if (fcast_config_new(a->model, a->h, a->input_size, &c) != FC_OK) return refused(command, "h");
    int rc = fcast_config_set(c, "verbose", a->quiet ? "off" : "on") == FC_OK ? 0 : refused(command, "verbose");
    int intervals = 0;
    for (const arg_spec *s = specs; s->name; s++) intervals |= !strcmp(s->name, "prediction-intervals") && s->seen;
    for (const arg_spec *s = specs; !rc && s->name; s++) {
        char buf[64];
        const char *key = key_of(s->name, renamed);
        if (!s->seen || not_a_key(s->name)) continue;
        if (!intervals && !strncmp(key, "pi-", 3)) continue;   /* --print-config writes them without intervals */
        /* -2: the model's own, as --print-config wrote it before it left the key unset */
        if (!strcmp(key, "num-lr-decays") && *train_flags_integer(a, "num-lr-decays") == -2) continue;
        if (fcast_config_set(c, key, flag_text(s, buf, sizeof buf)) != FC_OK) rc = refused(command, key);
    }
    if (!rc && fcast_config_check(c) != FC_OK) rc = refused(command, "");
    if (rc) fcast_config_free(c);
    else *out = c;
    return rc;
}
