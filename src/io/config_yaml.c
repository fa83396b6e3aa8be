/* Configuration files in YAML (see config_yaml.h). libyaml's event parser
 * is read one event at a time; each event is copied into a small `item`
 * (its type, its text, where it starts) and released at once, so that no
 * error path has a libyaml event left to delete. */
#include "io/config_yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "core/error.h"

/* More keys than any command has flags, by far; bounds the quadratic
 * duplicate check on hostile input. */
#define MAX_ENTRIES 4096

typedef struct {
    yaml_event_type_t type;
    char *text;       /* a scalar's value (owned), else NULL */
    size_t line, col; /* 1-based start */
    int is_null;
} item;

typedef struct {
    yaml_parser_t parser;
    fc_config *c;
} reader;

static fc_status syntax_error(reader *r) {
    const yaml_parser_t *p = &r->parser;
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_MEMORY_ERROR) return fc_error(FC_ERR_MEMORY, "%s: out of memory while parsing", r->c->path);
    if (p->error == YAML_READER_ERROR)   /* the reader reports a byte offset, not a line */
        return fc_error(FC_ERR_PARSE, "%s: byte %zu: %s (a configuration file is UTF-8 text)", r->c->path,
                        p->problem_offset, problem);
    if (p->context)
        return fc_error(FC_ERR_PARSE, "%s:%zu:%zu: YAML syntax error: %s (%s at line %zu)", r->c->path,
                        p->problem_mark.line + 1, p->problem_mark.column + 1, problem, p->context,
                        p->context_mark.line + 1);
    return fc_error(FC_ERR_PARSE, "%s:%zu:%zu: YAML syntax error: %s", r->c->path, p->problem_mark.line + 1,
                    p->problem_mark.column + 1, problem);
}

static int plain_null(const yaml_event_t *ev) {
    const char *v = (const char *)ev->data.scalar.value;
    return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"));
}

/* The next event as an item (text owned by the caller: free it). */
static fc_status next_item(reader *r, item *it) {
    yaml_event_t ev;
    memset(it, 0, sizeof *it);
    if (!yaml_parser_parse(&r->parser, &ev)) return syntax_error(r);
    it->type = ev.type;
    it->line = ev.start_mark.line + 1;
    it->col = ev.start_mark.column + 1;
    fc_status st = FC_OK;
    if (ev.type == YAML_SCALAR_EVENT) {
        size_t len = ev.data.scalar.length;
        if (memchr(ev.data.scalar.value, '\0', len))
            st = fc_error(FC_ERR_PARSE, "%s:%zu: a value contains a NUL character", r->c->path, it->line);
        else if (!(it->text = fc_malloc(len + 1, "configuration value")))
            st = FC_ERR_MEMORY;
        else {
            memcpy(it->text, ev.data.scalar.value, len + 1);
            it->is_null = plain_null(&ev);
        }
    }
    yaml_event_delete(&ev);
    return st;
}

static const char *node_name(yaml_event_type_t t) {
    switch (t) {
    case YAML_SEQUENCE_START_EVENT: return "a list";
    case YAML_MAPPING_START_EVENT: return "a mapping";
    case YAML_ALIAS_EVENT: return "an alias (*name; aliases are not supported)";
    case YAML_SCALAR_EVENT: return "a single value";
    default: return "nothing";
    }
}

/* Reads the items of a sequence of scalars (after its start) into one
 * comma-separated string. */
static fc_status read_sequence(reader *r, const char *key, size_t line, char **out) {
    size_t len = 0;
    char *joined = fc_calloc(1, 1, "configuration list");
    if (!joined) return FC_ERR_MEMORY;
    for (;;) {
        item it;
        fc_status st = next_item(r, &it);
        if (st == FC_OK && it.type == YAML_SEQUENCE_END_EVENT) { *out = joined; return FC_OK; }
        if (st == FC_OK && (it.type != YAML_SCALAR_EVENT || it.is_null))
            st = fc_error(FC_ERR_PARSE, "%s:%zu: '%s' (line %zu): a list item must be a single value, not %s",
                          r->c->path, it.line, key, line, it.is_null ? "empty" : node_name(it.type));
        char *grown = NULL;
        if (st == FC_OK && (grown = fc_realloc(joined, len + strlen(it.text) + 2, "configuration list"))) {
            joined = grown;
            len += (size_t)sprintf(joined + len, "%s%s", len ? "," : "", it.text);
        } else if (st == FC_OK) {
            st = FC_ERR_MEMORY;
        }
        free(it.text);
        if (st != FC_OK) { free(joined); return st; }
    }
}

static fc_status add_entry(reader *r, char *key, char *value, size_t line, int is_null) {
    fc_config *c = r->c;
    fc_status st = FC_OK;
    const fc_config_entry *first = fc_config_find(c, key);
    fc_config_entry *grown = NULL;
    if (first)
        st = fc_error(FC_ERR_PARSE, "%s:%zu: '%s' given twice (first at %s:%zu)", c->path, line, key, c->path,
                      first->line);
    else if (c->n == MAX_ENTRIES)
        st = fc_error(FC_ERR_PARSE, "%s:%zu: more than %d keys", c->path, line, MAX_ENTRIES);
    else if (!(grown = fc_realloc(c->entries, (c->n + 1) * sizeof *grown, "configuration entries")))
        st = FC_ERR_MEMORY;
    if (st != FC_OK) { free(key); free(value); return st; }
    c->entries = grown;
    c->entries[c->n++] = (fc_config_entry){.key = key, .value = value, .line = line, .is_null = is_null};
    return FC_OK;
}

/* One "key: value" pair, its key already read; takes ownership of key.text. */
static fc_status read_pair(reader *r, item key) {
    item v;
    fc_status st = next_item(r, &v);
    char *value = v.text;
    if (st == FC_OK && v.type == YAML_SEQUENCE_START_EVENT) st = read_sequence(r, key.text, key.line, &value);
    else if (st == FC_OK && v.type != YAML_SCALAR_EVENT)
        st = fc_error(FC_ERR_PARSE, "%s:%zu: '%s' has %s as its value; a flag takes a single value or a list",
                      r->c->path, v.line, key.text, node_name(v.type));
    if (st != FC_OK) { free(key.text); free(value); return st; }
    return add_entry(r, key.text, value, key.line, v.type == YAML_SCALAR_EVENT && v.is_null);
}

/* The pairs of the top-level mapping, after its start event. */
static fc_status read_mapping(reader *r) {
    for (;;) {
        item key;
        FC_TRY(next_item(r, &key));
        if (key.type == YAML_MAPPING_END_EVENT) return FC_OK;
        int empty = key.type == YAML_SCALAR_EVENT && (key.is_null || !*key.text);   /* ~, or "" quoted */
        if (key.type != YAML_SCALAR_EVENT || empty) {
            free(key.text);
            return fc_error(FC_ERR_PARSE, "%s:%zu: a key must be a flag name, not %s", r->c->path, key.line,
                            empty ? "empty" : node_name(key.type));
        }
        FC_TRY(read_pair(r, key));
    }
}

/* Stream start, at most one document whose root is a mapping (or null), end. */
static fc_status read_stream(reader *r) {
    item it;
    FC_TRY(next_item(r, &it));   /* stream start */
    FC_TRY(next_item(r, &it));
    if (it.type == YAML_STREAM_END_EVENT) return FC_OK;   /* empty file, or only comments */
    FC_TRY(next_item(r, &it));   /* the document's root */
    free(it.text);
    if (it.type == YAML_MAPPING_START_EVENT) FC_TRY(read_mapping(r));
    else if (!(it.type == YAML_SCALAR_EVENT && it.is_null))
        return fc_error(FC_ERR_PARSE, "%s:%zu: the top level must be a mapping of flag names to values "
                        "(\"max-steps: 100\"), not %s", r->c->path, it.line, node_name(it.type));
    FC_TRY(next_item(r, &it));   /* document end */
    FC_TRY(next_item(r, &it));
    if (it.type == YAML_DOCUMENT_START_EVENT)
        return fc_error(FC_ERR_PARSE, "%s:%zu: a second document ('---'): a configuration file holds one",
                        r->c->path, it.line);
    return FC_OK;
}

fc_status fc_config_parse(const char *name, const char *text, size_t len, fc_config *out) {
    memset(out, 0, sizeof *out);
    size_t nlen = strlen(name);
    if (!(out->path = fc_malloc(nlen + 1, "configuration path"))) return FC_ERR_MEMORY;
    memcpy(out->path, name, nlen + 1);
    reader r = {.c = out};
    if (!yaml_parser_initialize(&r.parser)) return fc_error(FC_ERR_MEMORY, "%s: cannot start the YAML parser", name);
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
    fc_status st = read_stream(&r);
    yaml_parser_delete(&r.parser);
    return st;
}

/* Reads a regular file whole; anything else is refused before a read that
 * could block (a FIFO) or mean nothing (a directory). */
static fc_status read_file(const char *path, char **text, size_t *len) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return fc_error(FC_ERR_IO, "%s: cannot open the configuration file: %s", path, strerror(errno));
    struct stat sb;
    fc_status st = FC_OK;
    if (fstat(fd, &sb) != 0) st = fc_error(FC_ERR_IO, "%s: %s", path, strerror(errno));
    else if (S_ISDIR(sb.st_mode)) st = fc_error(FC_ERR_IO, "%s: is a directory, not a configuration file", path);
    else if (!S_ISREG(sb.st_mode))
        st = fc_error(FC_ERR_IO, "%s: not a regular file (a pipe or device); give a configuration file", path);
    else if ((size_t)sb.st_size > FC_CONFIG_MAX_BYTES)
        st = fc_error(FC_ERR_IO, "%s: %lld bytes; a configuration file is at most %zu", path, (long long)sb.st_size,
                      FC_CONFIG_MAX_BYTES);
    char *buf = st == FC_OK ? fc_malloc((size_t)sb.st_size + 1, "configuration file") : NULL;
    if (st == FC_OK && !buf) st = FC_ERR_MEMORY;
    size_t got = 0;
    while (st == FC_OK && got < (size_t)sb.st_size) {
        ssize_t k = read(fd, buf + got, (size_t)sb.st_size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) st = fc_error(FC_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        if (k <= 0) break;   /* shrank while we read: parse what is there */
        got += (size_t)k;
    }
    close(fd);
    if (st != FC_OK) { free(buf); return st; }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return FC_OK;
}

fc_status fc_config_load(const char *path, fc_config *out) {
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    FC_TRY(read_file(path, &text, &len));
    fc_status st = fc_config_parse(path, text, len, out);
    free(text);
    return st;
}

const fc_config_entry *fc_config_find(const fc_config *c, const char *key) {
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->entries[i].key, key)) return &c->entries[i];
    return NULL;
}

void fc_config_free(fc_config *c) {
    for (size_t i = 0; i < c->n; i++) {
        free(c->entries[i].key);
        free(c->entries[i].value);
    }
    free(c->entries);
    free(c->path);
    memset(c, 0, sizeof *c);
}
