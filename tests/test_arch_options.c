/* The architecture options (models/arch_options.h), gathered from the
 * kinds' own rows: the table is every kind's rows in model_kind_list.h's
 * order, each name once and every row complete; each kind of row (size,
 * switch, probability, the kinds' own text) reaches its field of the
 * configuration through fc_arch_set and fc_arch_apply, and values out of
 * range are refused naming the flag. */
#include <limits.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "models/model_kinds.h"

/* The table is the kinds' rows, concatenated in the kinds' order. */
static void check_gathered(void) {
    size_t n, at = 0;
    const fc_arch_option *t = fc_arch_option_table(&n);
    CHECK(n > 0 && n <= FC_ARCH_MAX_OPTIONS);
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++) {
        const fc_arch_option_rows *own = fc_model_kind_row((fc_model_kind)k)->arch_options;
        for (size_t i = 0; i < own->n && at < n; i++, at++)
            CHECK_MSG(!strcmp(t[at].name, own->rows[i].name), "option %zu: %s, kind %d's row %zu: %s", at, t[at].name,
                      k, i, own->rows[i].name);
    }
    CHECK_MSG(at == n, "%zu options gathered from the kinds, %zu in the table", at, n);
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(t[i].name && t[i].meta && t[i].help && t[i].apply, "option %zu (%s) is incomplete", i,
                  t[i].name ? t[i].name : "no name");
        CHECK_MSG(!t[i].is_size || (t[i].lo <= t[i].hi && t[i].hi < FC_ARCH_UNSET), "%s: range", t[i].name);
        CHECK_MSG(t[i].apply != fc_arch_apply_int_field || t[i].hi <= INT_MAX, "%s: an int field up to %zu",
                  t[i].name, t[i].hi);
        for (size_t j = 0; j < i; j++)
            CHECK_MSG(strcmp(t[i].name, t[j].name), "two rows for --%s: an option another kind has is its row",
                      t[i].name);
    }
}

/* cfg of kind k with one option set to value, applied: the status. */
static fc_status apply_one(fc_model_kind k, const char *name, const char *value, fc_model_config *cfg) {
    fc_arch_options a;
    fc_arch_defaults(&a);
    fc_model_config_default(cfg, k, 12, 24);
    FC_TRY(fc_arch_set(&a, name, value));
    return fc_arch_apply(&a, cfg);
}

static void check_applied(void) {
    fc_model_config c;
    CHECK(apply_one(FC_MODEL_MLP, "hidden-size", "64", &c) == FC_OK && c.hidden_size == 64);       /* size_t field */
    CHECK(apply_one(FC_MODEL_MLP, "num-layers", "3", &c) == FC_OK && c.num_layers == 3);           /* int field */
    CHECK(apply_one(FC_MODEL_NBEATS, "n-basis", "0", &c) == FC_OK && c.n_basis == 0);              /* 0 in range */
    CHECK(apply_one(FC_MODEL_TIDE, "layernorm", "off", &c) == FC_OK && c.layernorm == 0);          /* switch */
    CHECK(apply_one(FC_MODEL_TIDE, "dropout", "0.25", &c) == FC_OK && c.dropout == 0.25);         /* probability */
    CHECK(apply_one(FC_MODEL_PATCHTST, "activation", "relu", &c) == FC_OK && c.gelu == 0);        /* the kind's own */
    CHECK(apply_one(FC_MODEL_NHITS, "n-pool-kernel-size", "3,2,1", &c) == FC_OK && c.n_pool_kernel_size[0] == 3);
    CHECK(apply_one(FC_MODEL_NHITS, "n-blocks", "2,1,1", &c) == FC_OK && c.n_blocks[0] == 2 && c.n_blocks[1] == 1);
    CHECK(apply_one(FC_MODEL_NHITS, "mlp-units", "8:16,16:4", &c) == FC_OK && c.n_units == 2 &&
          c.mlp_units[0][1] == 16 && c.mlp_units[1][1] == 4);
    /* a flag of another kind is checked and ignored by this one */
    CHECK(apply_one(FC_MODEL_NHITS, "n-heads", "4", &c) == FC_OK && c.n_heads == 4);
}

static void check_refused(void) {
    fc_model_config c;
    CHECK(apply_one(FC_MODEL_NHITS, "hidden-size", "0", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--hidden-size 0: must be from 1 to 1048576");
    CHECK(apply_one(FC_MODEL_MLP, "encoder-layers", "9", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--encoder-layers 9: must be from 1 to 8");
    CHECK(apply_one(FC_MODEL_TIDE, "layernorm", "yes", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--layernorm 'yes': expected on or off");
    CHECK(apply_one(FC_MODEL_TIDE, "dropout", "1", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--dropout '1': expected a probability in [0, 1)");
    CHECK(apply_one(FC_MODEL_PATCHTST, "activation", "tanh", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--activation 'tanh': expected gelu or relu");
    CHECK(apply_one(FC_MODEL_NHITS, "n-blocks", "1,2", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--n-blocks '1,2': expected 3 integers");
    CHECK(apply_one(FC_MODEL_MLP, "n-heads", "x", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "n-heads 'x': expected a non-negative integer");
    CHECK(apply_one(FC_MODEL_MLP, "tft-layers", "2", &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "unknown architecture option 'tft-layers'");
}

int main(void) {
    check_gathered();
    check_applied();
    check_refused();
    return CHECK_DONE();
}
