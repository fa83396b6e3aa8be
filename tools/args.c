/* Flag parsing for the CLI (see args.h): the command line is scanned into
 * (flag, value) pairs first, so --help, --config and repeated flags are
 * known before anything is stored; then the configuration file's values are
 * stored, then the command line's over them. */
#include "args.h"

#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

typedef struct {
    arg_spec *spec;
    const char *value;   /* NULL for an ARG_FLAG */
} arg_given;

typedef struct {
    arg_given *items;
    int n;
    const char *config;  /* --config FILE, or NULL */
    int print_config, print_flags, help;
    unsigned char *no_default;   /* per spec: an ARG_SIZE that started ARG_SIZE_UNSET */
} argv_scan;

arg_spec *args_find(arg_spec *specs, const char *name, size_t len) {
    for (arg_spec *s = specs; s->name; s++)
        if (strlen(s->name) == len && strncmp(s->name, name, len) == 0) return s;
    return NULL;
}

int args_append(arg_spec *specs, size_t cap, const arg_spec *extra, size_t n) {
    size_t used = 0;
    while (specs[used].name) used++;
    if (used + n >= cap) {   /* the table must keep its NULL-named end */
        fprintf(stderr, "fcast: internal error: a flag table of %zu entries has no room for %zu more\n", cap, n);
        return -1;
    }
    memcpy(specs + used, extra, n * sizeof *extra);
    specs[used + n] = (arg_spec){0};
    return 0;
}

/* `where` is "" for the command line, "FILE:LINE: " for a configuration file.
 * no_default: the destination started as ARG_SIZE_UNSET (ARG_INT_UNSET),
 * which a value must then never equal (anywhere else it is just a number). */
static int store_value(const char *command, const char *where, arg_spec *s, const char *v, int no_default) {
    char *end = NULL;
    errno = 0;
    switch (s->kind) {
    case ARG_STR: case ARG_IN: case ARG_IN_LIST: case ARG_OUT: *(const char **)s->dest = v; return 0;
    case ARG_INT: {
        long x = strtol(v, &end, 10);
        if (errno || end == v || *end || (no_default && x == ARG_INT_UNSET)) break;
        *(long *)s->dest = x;
        return 0;
    }
    case ARG_SIZE: {
        if (*v < '0' || *v > '9') break;   /* strtoull would accept " -1" as a huge value */
        unsigned long long x = strtoull(v, &end, 10);
        if (errno || end == v || *end || (no_default && x >= (unsigned long long)ARG_SIZE_UNSET)) break;
        *(size_t *)s->dest = (size_t)x;
        return 0;
    }
    case ARG_DOUBLE: {
        double x = strtod(v, &end);
        /* ERANGE on underflow is a number all the same: 1e-320 is a
         * subnormal, 1e-400 zero; only overflow (inf) is refused */
        if ((errno && !(errno == ERANGE && fabs(x) <= DBL_MIN)) || end == v || *end || !isfinite(x)) break;
        *(double *)s->dest = x;
        return 0;
    }
    case ARG_FLAG: *(int *)s->dest = 1; return 0;
    }
    fprintf(stderr, "fcast %s: %s--%s expects %s, got '%s'\n", command, where, s->name,
            s->kind == ARG_DOUBLE ? "a finite number" : s->kind == ARG_SIZE ? "a non-negative integer" : "an integer", v);
    return CLI_EXIT_USAGE;
}

void args_print_help(const char *command, const char *summary, const arg_spec *specs) {
    printf("usage: fcast %s [options]\n\n%s\n\noptions:\n", command, summary);
    for (const arg_spec *s = specs; s->name; s++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", s->name, s->metavar ? " " : "", s->metavar ? s->metavar : "");
        printf("  %-28s %s%s\n", left, s->help, s->required ? " (required)" : "");
    }
    printf("  %-28s %s\n", "--config FILE", "read these flags from a YAML file (keys: the flag names); flags given "
                                            "here override it");
    printf("  %-28s %s\n", "--print-config", "print the configuration (file, flags, defaults) as YAML and exit");
    printf("  %-28s %s\n", "--help", "show this help");
}

/* prefix "--" for the command line, "" for a configuration file's keys. */
static void list_known(const char *command, const arg_spec *specs, const char *prefix) {
    fprintf(stderr, "fcast %s: known %s:", command, *prefix ? "options" : "keys");
    for (const arg_spec *s = specs; s->name; s++) fprintf(stderr, " %s%s", prefix, s->name);
    fprintf(stderr, " (see fcast %s --help)\n", command);
}

/* Edit distance, capped: enough to suggest "hidden-size" for "hiden-size". */
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la >= 64 || lb >= 64) return 64;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Names close to a mistyped key ("hiden-size", "--max-steps", "steps"). */
static int is_close(const char *key, const char *name) {
    return edit_distance(key, name) <= 2 || (strlen(key) >= 3 && strstr(name, key));
}

static int unknown_key(const char *command, const arg_spec *specs, const char *file, const fcast_setting *e) {
    const char *bare = strncmp(e->key, "--", 2) ? e->key : e->key + 2;
    fprintf(stderr, "fcast %s: %s:%zu: unknown key '%s'", command, file, e->line, e->key);
    int any = 0;
    for (const arg_spec *s = specs; s->name; s++)
        if (is_close(bare, s->name)) fprintf(stderr, "%s%s", any++ ? ", " : "; did you mean ", s->name);
    fprintf(stderr, "%s%s\n", any ? "?" : "", bare != e->key ? " (keys are flag names without the leading --)" : "");
    list_known(command, specs, "");
    return CLI_EXIT_USAGE;
}

/* The strings a configuration file gave ARG_STR flags point into its
 * entries, so the parsed files are kept until exit. */
typedef struct kept_config {
    fcast_settings_file *f;
    struct kept_config *next;
} kept_config;

static kept_config *kept;

static void free_kept(void) {
    while (kept) {
        kept_config *k = kept;
        kept = k->next;
        fcast_settings_free(k->f);
        free(k);
    }
}

static kept_config *keep_config(void) {
    static int registered;
    kept_config *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    if (!registered) registered = atexit(free_kept) == 0;
    k->next = kept;
    kept = k;
    return k;
}

static int store_bool(const char *command, const char *where, arg_spec *s, const char *v) {
    static const char *yes[] = {"true", "True", "TRUE"}, *no[] = {"false", "False", "FALSE"};
    for (int i = 0; i < 3; i++) {
        if (!strcmp(v, yes[i])) { *(int *)s->dest = 1; return 0; }
        if (!strcmp(v, no[i])) { *(int *)s->dest = 0; return 0; }
    }
    fprintf(stderr, "fcast %s: %s--%s expects true or false, got '%s'\n", command, where, s->name, v);
    return CLI_EXIT_USAGE;
}

static int apply_entry(const char *command, arg_spec *specs, const unsigned char *no_default, const char *file,
                       const fcast_setting *e) {
    if (!strcmp(e->key, "config")) {
        fprintf(stderr, "fcast %s: %s:%zu: 'config' cannot be set inside a configuration file (give one file "
                "with --config)\n", command, file, e->line);
        return CLI_EXIT_USAGE;
    }
    arg_spec *s = args_find(specs, e->key, strlen(e->key));
    if (!s) return unknown_key(command, specs, file, e);
    char where[4200];
    snprintf(where, sizeof where, "%s:%zu: ", file, e->line);
    if (e->is_null) {
        fprintf(stderr, "fcast %s: %s--%s has no value (give one, or leave the key out)\n", command, where, s->name);
        return CLI_EXIT_USAGE;
    }
    int rc = s->kind == ARG_FLAG ? store_bool(command, where, s, e->value)
                                 : store_value(command, where, s, e->value, no_default[s - specs]);
    if (!rc) s->seen |= ARG_FROM_FILE;
    return rc;
}

static int apply_config(const char *command, arg_spec *specs, const unsigned char *no_default, const char *path) {
    kept_config *k = keep_config();
    if (!k) { fprintf(stderr, "fcast %s: out of memory\n", command); return CLI_EXIT_MEMORY; }
    fc_status st = fcast_settings_read(path, &k->f);
    if (st != FC_OK) {   /* the file itself: unreadable (5), not flag: value YAML (3), memory (6) */
        fprintf(stderr, "fcast %s: --config %s\n", command, fc_last_error());
        return cli_exit_code(st);
    }
    for (size_t i = 0; i < fcast_settings_count(k->f); i++) {
        int rc = apply_entry(command, specs, no_default, fcast_settings_path(k->f), fcast_settings_at(k->f, i));
        if (rc) return rc;
    }
    return 0;
}

static int twice(const char *command, const char *name) {
    fprintf(stderr, "fcast %s: --%s given twice (give each flag once; a flag on the command line overrides "
            "--config's file)\n", command, name);
    return CLI_EXIT_USAGE;
}

/* --config and --print-config, which no table lists. 0: handled (or not
 * ours: *ours stays 0); CLI_EXIT_USAGE: usage error. */
static int scan_builtin(const char *command, const char *a, int argc, char **argv, int *i, argv_scan *sc, int *ours) {
    *ours = 1;
    if (!strcmp(a, "--print-config")) {
        if (sc->print_config) return twice(command, "print-config");
        sc->print_config = 1;
        return 0;
    }
    if (!strcmp(a, "--print-flags")) {
        sc->print_flags = 1;
        return 0;
    }
    if (strcmp(a, "--config") && strncmp(a, "--config=", 9)) { *ours = 0; return 0; }
    if (sc->config) return twice(command, "config");
    sc->config = a[8] == '=' ? a + 9 : (*i + 1 < argc ? argv[++*i] : NULL);
    if (!sc->config) { fprintf(stderr, "fcast %s: --config needs a value\n", command); return CLI_EXIT_USAGE; }
    return 0;
}

/* One "--name[=value] [value]" at argv[*i] into sc->items. */
static int scan_one(const char *command, arg_spec *specs, int argc, char **argv, int *i, argv_scan *sc) {
    const char *a = argv[*i];
    if (strncmp(a, "--", 2) != 0) {
        fprintf(stderr, "fcast %s: unexpected argument '%s'\n", command, a);
        list_known(command, specs, "--");
        return CLI_EXIT_USAGE;
    }
    int ours, rc = scan_builtin(command, a, argc, argv, i, sc, &ours);
    if (ours) return rc;
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    arg_spec *s = args_find(specs, name, len);
    if (!s) {
        fprintf(stderr, "fcast %s: unknown option '%.*s'\n", command, (int)len + 2, a);
        list_known(command, specs, "--");
        return CLI_EXIT_USAGE;
    }
    for (int k = 0; k < sc->n; k++)
        if (sc->items[k].spec == s) return twice(command, s->name);
    const char *v = NULL;
    if (s->kind == ARG_FLAG && eq) {
        fprintf(stderr, "fcast %s: --%s takes no value\n", command, s->name);
        return CLI_EXIT_USAGE;
    }
    if (s->kind != ARG_FLAG) {
        v = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!v) { fprintf(stderr, "fcast %s: --%s needs a value\n", command, s->name); return CLI_EXIT_USAGE; }
    }
    sc->items[sc->n++] = (arg_given){s, v};
    return 0;
}

static int scan_argv(const char *command, arg_spec *specs, int argc, char **argv, int first, argv_scan *sc) {
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { sc->help = 1; return 0; }
        int rc = scan_one(command, specs, argc, argv, &i, sc);
        if (rc) return rc;
    }
    return 0;
}

static int apply_argv(const char *command, const arg_spec *specs, const argv_scan *sc) {
    for (int k = 0; k < sc->n; k++) {
        arg_spec *s = sc->items[k].spec;
        int rc = store_value(command, "", s, sc->items[k].value, sc->no_default[s - specs]);
        if (rc) return rc;
        s->seen |= ARG_FROM_ARGV;
    }
    return 0;
}

static int check_required(const char *command, const arg_spec *specs) {
    for (const arg_spec *s = specs; s->name; s++)
        if (s->required && !s->seen) {
            fprintf(stderr, "fcast %s: --%s is required (see fcast %s --help)\n", command, s->name, command);
            return CLI_EXIT_USAGE;
        }
    return 0;
}

static int print_config(const char *command, const arg_spec *specs) {
    if (args_print_config(stdout, command, specs) == 0) return 1;
    fprintf(stderr, "fcast %s: --print-config: cannot write to standard output: %s\n", command, strerror(errno));
    return CLI_EXIT_IO;
}

/* ---- Files: every file flag's kind known, no output on another file ---- */

/* A flag whose metavar says FILE but whose kind does not say whether it is
 * read or written would go unchecked: a programming error, which every run
 * of the command then shows. */
static int check_file_kinds(const char *command, const arg_spec *specs) {
    for (const arg_spec *s = specs; s->name; s++)
        if (s->metavar && strstr(s->metavar, "FILE") && s->kind != ARG_IN && s->kind != ARG_IN_LIST &&
            s->kind != ARG_OUT) {
            fprintf(stderr, "fcast %s: internal error: --%s takes a FILE but its kind does not say whether it is "
                    "read or written (ARG_IN, ARG_IN_LIST or ARG_OUT)\n", command, s->name);
            return CLI_EXIT_INTERNAL;
        }
    return 0;
}

static int print_flags(const arg_spec *specs) {
    static const char *const kinds[] = {"str", "int", "size", "double", "flag", "in", "in-list", "out"};
    for (const arg_spec *s = specs; s->name; s++)
        printf("%s\t%s\t%s\n", s->name, kinds[s->kind], s->metavar ? s->metavar : "-");
    return fflush(stdout) == 0 && !ferror(stdout) ? 1 : CLI_EXIT_IO;
}

/* Pairs of flags that may name one file: a resumed run goes on writing
 * the checkpoint it was resumed from. */
static const char *may_share(const char *name) {
    return !strcmp(name, "checkpoint") ? "--resume" : NULL;
}

/* How the messages name a file flag: as typed, or how it got its value. */
static void file_flag_name(const arg_spec *s, char *buf, size_t cap) {
    if (s->seen & ARG_FROM_POSITION) snprintf(buf, cap, "the first argument (--%s)", s->name);
    else if (!s->seen) snprintf(buf, cap, "--%s (its default)", s->name);
    else snprintf(buf, cap, "--%s", s->name);
}

/* Every file flag with a value, and --config's file, through the
 * library's one check (fcast_paths_distinct). */
static int check_files(const char *command, const arg_spec *specs, const char *config) {
    size_t n = 0;
    for (const arg_spec *s = specs; s->name; s++) n++;
    fcast_path_use *uses = calloc(n + 1, sizeof *uses);
    char (*names)[96] = calloc(n + 1, sizeof *names);
    if (!uses || !names) {
        free(uses), free(names);
        fprintf(stderr, "fcast %s: out of memory\n", command);
        return CLI_EXIT_MEMORY;
    }
    size_t k = 0;
    if (config) uses[k++] = (fcast_path_use){"--config", config, FCAST_PATH_IN, 0, NULL};
    for (const arg_spec *s = specs; s->name; s++) {
        if (s->kind != ARG_IN && s->kind != ARG_IN_LIST && s->kind != ARG_OUT) continue;
        const char *v = *(const char *const *)s->dest;
        if (!v) continue;
        file_flag_name(s, names[k], sizeof names[k]);
        uses[k] = (fcast_path_use){names[k], v, s->kind == ARG_OUT ? FCAST_PATH_OUT_STDOUT : FCAST_PATH_IN,
                                   s->kind == ARG_IN_LIST, may_share(s->name)};
        k++;
    }
    fc_status st = fcast_paths_distinct(uses, k);
    free(uses), free(names);
    return st == FC_OK ? 0 : cli_fail(command);
}

int args_parse(const char *command, const char *summary, arg_spec *specs,
               int argc, char **argv, int first) {
    argv_scan sc = {0};
    size_t n_specs = 0;
    while (specs[n_specs].name) n_specs++;
    sc.items = calloc(argc > first ? (size_t)(argc - first) : 1, sizeof *sc.items);
    sc.no_default = calloc(n_specs + 1, 1);
    if (!sc.items || !sc.no_default) {
        free(sc.items);
        free(sc.no_default);
        fprintf(stderr, "fcast %s: out of memory\n", command);
        return CLI_EXIT_MEMORY;
    }
    for (size_t i = 0; i < n_specs; i++)
        sc.no_default[i] = (specs[i].kind == ARG_SIZE && *(const size_t *)specs[i].dest == ARG_SIZE_UNSET) ||
                           (specs[i].kind == ARG_INT && *(const long *)specs[i].dest == ARG_INT_UNSET);
    int rc = check_file_kinds(command, specs);
    if (!rc) rc = scan_argv(command, specs, argc, argv, first, &sc);
    if (!rc && sc.help) {
        args_print_help(command, summary, specs);
        rc = 1;
    }
    if (!rc && sc.print_flags) rc = print_flags(specs);
    if (!rc && sc.config) rc = apply_config(command, specs, sc.no_default, sc.config);
    if (!rc) rc = apply_argv(command, specs, &sc);
    if (!rc && sc.print_config) rc = print_config(command, specs);
    if (!rc) rc = check_files(command, specs, sc.config);
    if (!rc) rc = check_required(command, specs);
    free(sc.items);
    free(sc.no_default);
    return rc;
}

/* ---- The resolved configuration, as YAML and as JSON ---- */

int args_has_value(const arg_spec *s) {
    if (arg_is_text(s->kind)) return *(const char *const *)s->dest != NULL;
    if (s->kind == ARG_SIZE) return *(const size_t *)s->dest != ARG_SIZE_UNSET;
    if (s->kind == ARG_INT) return *(const long *)s->dest != ARG_INT_UNSET;
    if (s->kind == ARG_DOUBLE) return !isnan(*(const double *)s->dest);   /* NaN: not given */
    return 1;
}

/* The shortest "%.Ng" that reads back as the same double. */
static void double_text(double x, char *buf, size_t size) {
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) return;
    }
}

/* Words a YAML reader would take for null or a boolean rather than text. */
static int special_word(const char *v) {
    static const char *words[] = {"~", "null", "true", "false", "yes", "no", "on", "off", "y", "n"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcasecmp(v, words[i])) return 1;
    return 0;
}

/* Plain (unquoted) when nothing in the text means something to YAML. */
static int plain_safe(const char *v) {
    if (!*v || special_word(v) || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./", *v))
        return 0;
    for (const char *p = v; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-,=", *p) &&
            !(*p == ':' && p[1] && p[1] != ' '))
            return 0;
    return 1;
}

static void yaml_string(FILE *f, const char *v) {
    if (plain_safe(v)) { fputs(v, f); return; }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
        else fputc(*p, f);   /* UTF-8 passes through as it is */
    }
    fputc('"', f);
}

static void yaml_value(FILE *f, const arg_spec *s) {
    char buf[64];
    switch (s->kind) {
    case ARG_STR: case ARG_IN: case ARG_IN_LIST: case ARG_OUT: yaml_string(f, *(const char *const *)s->dest); return;
    case ARG_INT: fprintf(f, "%ld", *(const long *)s->dest); return;
    case ARG_SIZE: fprintf(f, "%zu", *(const size_t *)s->dest); return;
    case ARG_DOUBLE:
        double_text(*(const double *)s->dest, buf, sizeof buf);
        fputs(buf, f);
        return;
    case ARG_FLAG: fputs(*(const int *)s->dest ? "true" : "false", f); return;
    }
}

int args_print_config(FILE *f, const char *command, const arg_spec *specs) {
    fprintf(f, "# fcast %s: the configuration of this run, for fcast %s --config FILE\n"
               "# (flags given with --config override the file; commented flags are not set)\n", command, command);
    for (const arg_spec *s = specs; s->name; s++) {
        if (!args_has_value(s) || (s->required && !s->seen)) {   /* a required h left at 0 is no value */
            fprintf(f, "# %s: (not set%s) %s\n", s->name, s->required ? ", required" : "", s->help);
            continue;
        }
        fprintf(f, "%s: ", s->name);
        yaml_value(f, s);
        fputc('\n', f);
    }
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static json_t *json_value(const arg_spec *s) {
    if (!args_has_value(s)) return json_null();
    switch (s->kind) {
    case ARG_STR: case ARG_IN: case ARG_IN_LIST: case ARG_OUT: {
        json_t *v = json_string(*(const char *const *)s->dest);
        return v ? v : json_null();   /* not UTF-8: JSON cannot say it */
    }
    case ARG_INT: return json_integer(*(const long *)s->dest);
    case ARG_SIZE: {
        size_t v = *(const size_t *)s->dest;
        return v <= (size_t)LLONG_MAX ? json_integer((json_int_t)v) : json_real((double)v);
    }
    case ARG_DOUBLE: {
        json_t *v = json_real(*(const double *)s->dest);
        return v ? v : json_null();   /* inf and NaN have no JSON spelling */
    }
    case ARG_FLAG: return json_boolean(*(const int *)s->dest);
    }
    return json_null();
}

static int skipped(const char *name, const char *const *skip) {
    for (; skip && *skip; skip++)
        if (!strcmp(name, *skip)) return 1;
    return 0;
}

char *args_config_json(const arg_spec *specs, const char *const *skip) {
    json_t *o = json_object();
    if (!o) return NULL;
    for (const arg_spec *s = specs; s->name; s++)
        if (!skipped(s->name, skip)) json_object_set_new(o, s->name, json_value(s));
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}
