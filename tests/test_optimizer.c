/* The training step's arithmetic against independent truth: the dynamic
 * loss scaler's transitions against torch.amp.GradScaler's rule
 * (_amp_update_scale_: backoff 0.5 on inf/NaN, growth 2 after 2000 clean
 * steps, tracker reset on either, no growth past fp32's range) walked by
 * hand; clip_grad_norm_'s coefficient against hand values; and
 * fc_optimizer_step on a real MLP with gradients set by hand: unscaling,
 * the global norm, clipping and Adam's first step against double
 * computations of the same formulas (torch's order: unscale, clip, step),
 * and the skipped steps leaving parameters, moments and the Adam step count
 * untouched bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "core/error.h"
#include "core/rng.h"
#include "kernels/lowp.h"
#include "models/model.h"
#include "train/loss_scaler.h"
#include "train/optimizer.h"

#define S16 65536.0f   /* GradScaler's initial scale, 2^16 */

/* ---- loss scaler ---- */

/* n clean updates; 1 when every one returned 0 (no skip). */
static int clean_updates(fc_loss_scaler *s, long n) {
    int ok = 1;
    for (long i = 0; i < n; i++) ok &= fc_loss_scaler_update(s, 0) == 0;
    return ok;
}

static void test_scaler(void) {
    fc_loss_scaler s;
    fc_loss_scaler_init(&s, 1);
    CHECK(s.enabled && s.scale == S16 && s.growth_tracker == 0 && s.skipped == 0);
    CHECK(s.growth_factor == 2.0f && s.backoff_factor == 0.5f && s.growth_interval == 2000);
    /* found_inf: skip, halve, reset the tracker, count */
    CHECK(clean_updates(&s, 10) && s.growth_tracker == 10);
    CHECK(fc_loss_scaler_update(&s, 1) == 1);
    CHECK(s.scale == S16 / 2 && s.growth_tracker == 0 && s.skipped == 1);
    CHECK(fc_loss_scaler_update(&s, 1) == 1 && fc_loss_scaler_update(&s, 1) == 1);
    CHECK(s.scale == S16 / 8 && s.skipped == 3);
    /* 1999 clean steps keep the scale; the 2000th doubles it and resets */
    fc_loss_scaler_init(&s, 1);
    CHECK(clean_updates(&s, 1999) && s.scale == S16 && s.growth_tracker == 1999);
    CHECK(fc_loss_scaler_update(&s, 0) == 0 && s.scale == 2 * S16 && s.growth_tracker == 0);
    CHECK(clean_updates(&s, 1999) && s.scale == 2 * S16);
    CHECK(clean_updates(&s, 1) && s.scale == 4 * S16 && s.skipped == 0);
    /* an inf in the middle restarts the count */
    fc_loss_scaler_init(&s, 1);
    CHECK(clean_updates(&s, 1500));
    CHECK(fc_loss_scaler_update(&s, 1) == 1 && s.scale == S16 / 2);
    CHECK(clean_updates(&s, 1999) && s.scale == S16 / 2 && s.growth_tracker == 1999);
    CHECK(clean_updates(&s, 1) && s.scale == S16 && s.growth_tracker == 0);
    /* growth that would overflow fp32 keeps the scale (and resets the tracker) */
    fc_loss_scaler_init(&s, 1);
    s.scale = 0x1p126f, s.growth_tracker = 1999;
    CHECK(clean_updates(&s, 1) && s.scale == 0x1p127f && s.growth_tracker == 0);
    CHECK(clean_updates(&s, 2000) && s.scale == 0x1p127f && s.growth_tracker == 0);
    CHECK(isfinite(s.scale));
    /* disabled: scale 1, never skips, never changes */
    fc_loss_scaler_init(&s, 0);
    CHECK(!s.enabled && s.scale == 1.0f);
    CHECK(fc_loss_scaler_update(&s, 1) == 0 && s.scale == 1.0f && s.skipped == 0);
    CHECK(clean_updates(&s, 2000) && s.scale == 1.0f);
}

/* ---- clip coefficient: min(max_norm / (norm + 1e-6), 1) ---- */

static void test_clip_coefficient(void) {
    CHECK(fc_clip_coefficient(10.0, 1.0) == 1.0 / (10.0 + 1e-6));
    CHECK(fc_clip_coefficient(0.5, 1.0) == 1.0);
    CHECK(fc_clip_coefficient(0.0, 1.0) == 1.0);
    CHECK(fc_clip_coefficient(1.0, 1.0) == 1.0 / (1.0 + 1e-6));   /* torch clips at norm == max */
    CHECK(fc_clip_coefficient(3.0, 2.0) == 2.0 / (3.0 + 1e-6));
    CHECK(fc_clip_coefficient(1.0 - 1e-6, 1.0) == 1.0);
}

/* ---- the optimizer step on a real model ---- */

typedef struct {
    fc_backend *be;
    fc_model *m;
    size_t n;
    float *g;     /* the "true" gradients (unscaled, unclipped) */
} fixture;

static fixture fixture_make(fc_precision prec) {
    fixture f = {0};
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_MLP, 2, 4);
    CHECK(fc_backend_cpu_create(1, &f.be) == FC_OK);
    CHECK(fc_model_create(&cfg, f.be, &f.m) == FC_OK);
    CHECK(fc_model_init_params(f.m, 11) == FC_OK);
    CHECK(fc_model_set_precision(f.m, prec) == FC_OK);
    CHECK(fc_model_reserve(f.m, 1, 1) == FC_OK && f.m->grads != NULL);
    f.n = f.m->n_trainable;
    CHECK(f.n > 1000000);
    /* gradients in +-0.01, with a zero, two large ones and one near Adam's
     * eps once clipped (where the step is visibly less than lr) */
    f.g = malloc(f.n * sizeof *f.g);
    for (size_t i = 0; i < f.n; i++) {
        fc_philox_out r = fc_rng_block(99, 5, i);
        f.g[i] = 0.01f * (2.0f * fc_u32_to_unit_float(r.v[0]) - 1.0f);
    }
    f.g[0] = 0.0f, f.g[1] = 3.0f, f.g[2] = -1e-6f, f.g[3] = -0.5f;
    return f;
}

static void fixture_free(fixture *f) {
    fc_model_free(&f->m);
    fc_backend_destroy(&f->be);
    free(f->g);
}

/* m->grads = scale * g (exact for a power-of-two scale) */
static void set_grads(fixture *f, float scale) {
    for (size_t i = 0; i < f->n; i++) f->m->grads[i] = scale * f->g[i];
}

static double norm_of(const float *g, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)g[i] * g[i];
    return sqrt(s);
}

static float *snapshot(const float *x, size_t n) {
    float *c = malloc(n * sizeof *c);
    memcpy(c, x, n * sizeof *c);
    return c;
}

static size_t bits_differ(const float *a, const float *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += fc_f32_bits(a[i]) != fc_f32_bits(b[i]);
    return d;
}

/* Grads after the step against g * coef (double), relative 1e-6 (the
 * float rounding of coef and of the product). */
static size_t grads_off(const fixture *f, double coef) {
    size_t bad = 0;
    for (size_t i = 0; i < f->n; i++) {
        double want = (double)f->g[i] * coef;
        bad += !(fabs(f->m->grads[i] - want) <= 1e-6 * fabs(want));
    }
    return bad;
}

/* Adam's first step from p0 with gradient gc, in double: m = 0.1 gc,
 * v = 0.001 gc^2, bias-corrected to gc and gc^2, so
 * p = p0 - lr * gc / (|gc| + eps) (about lr * sign(gc) for |gc| >> eps). */
static size_t adam_first_step_off(const fixture *f, const fc_optimizer *o, const float *p0,
                                  const float *gc, float lr) {
    size_t bad = 0;
    for (size_t i = 0; i < f->n; i++) {
        double g = gc[i], want = p0[i] - (double)lr * g / (fabs(g) + 1e-8);
        double tol = 2.5e-7 * fabs(p0[i]) + 1e-5 * lr;   /* ~2 ulps of p, 1e-5 of the step */
        bad += !(fabs(f->m->params[i] - want) <= tol);
        bad += !(fabs(o->m[i] - 0.1 * g) <= 1e-6 * fabs(0.1 * g));
        bad += !(fabs(o->v[i] - 0.001 * g * g) <= 1e-6 * 0.001 * g * g);
    }
    return bad;
}

/* (i) fp32, no scaler, clip_norm 1: grads scaled by 1/(||g|| + 1e-6),
 * the report gives ||g|| and the coefficient, Adam moves the parameters. */
static void test_step_clip(void) {
    fixture f = fixture_make(FC_PREC_FP32);
    fc_optimizer o;
    CHECK(fc_optimizer_init(&o, f.m, 0, 1.0) == FC_OK);
    set_grads(&f, 1.0f);
    double norm = norm_of(f.g, f.n), coef = 1.0 / (norm + 1e-6);
    CHECK(norm > 3.0);   /* clipping is active */
    float *p0 = snapshot(f.m->params, f.n), lr = 1e-3f;
    fc_step_report r;
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK);
    CHECK(r.skipped == 0 && o.adam_steps == 1);
    CHECK_CLOSE(r.grad_norm, norm, 0, 1e-12);
    CHECK_CLOSE(r.clip_coef, coef, 0, 1e-12);
    size_t bad = grads_off(&f, coef);
    CHECK_MSG(bad == 0, "clipped grads: %zu of %zu differ from g * %.9g", bad, f.n, coef);
    bad = adam_first_step_off(&f, &o, p0, f.m->grads, lr);
    CHECK_MSG(bad == 0, "Adam's first step: %zu values off the double formula", bad);
    CHECK(f.m->params[0] == p0[0]);                                     /* g = 0 */
    CHECK_CLOSE(p0[1] - f.m->params[1], lr, 0, 1e-4);                    /* |g| >> eps: lr * sign */
    CHECK_CLOSE(p0[3] - f.m->params[3], -lr, 0, 1e-4);
    CHECK(fabsf(p0[2] - f.m->params[2]) < 0.97f * lr);                /* |g coef| ~ 17 eps */
    /* below the threshold nothing is clipped: coefficient 1, grads untouched */
    fc_optimizer_free(&o, f.m);
    CHECK(fc_optimizer_init(&o, f.m, 0, 2.0 * norm) == FC_OK);
    set_grads(&f, 1.0f);
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK);
    CHECK(r.clip_coef == 1.0 && bits_differ(f.m->grads, f.g, f.n) == 0);
    CHECK_CLOSE(r.grad_norm, norm, 0, 1e-12);
    /* neither scaler nor clipping: no norm is computed */
    fc_optimizer_free(&o, f.m);
    CHECK(fc_optimizer_init(&o, f.m, 0, 0.0) == FC_OK);
    set_grads(&f, 1.0f);
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK);
    CHECK(isnan(r.grad_norm) && r.clip_coef == 1.0 && bits_differ(f.m->grads, f.g, f.n) == 0);
    /* a clip norm that is not a finite number >= 0 is refused */
    fc_optimizer_free(&o, f.m);
    CHECK(fc_optimizer_init(&o, f.m, 0, -1.0) == FC_ERR_INVALID);
    fc_error_clear();
    CHECK(fc_optimizer_init(&o, f.m, 0, NAN) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "clip-grad-norm");
    fc_optimizer_free(&o, f.m);
    free(p0);
    fixture_free(&f);
}

/* (ii) fp16 with the scaler: grads = S g are unscaled to g exactly (S a
 * power of two), the norm is the unscaled one, Adam steps, and the fp16
 * copies of the weights follow the new parameters. With clipping too, the
 * coefficient comes from the UNSCALED norm (torch: unscale_, then clip).
 * (iii) then an inf and a NaN: skipped, nothing moves, scale halves. */
static void check_low_copies(const fixture *f) {
    size_t bad = 0;
    const float *lo = f->m->params_low;   /* fp16 on CPU: fp16 values carried in fp32 */
    for (size_t i = 0; i < f->n; i++)
        bad += fc_f32_bits(lo[i]) != fc_f32_bits(fc_round_f16(f->m->params[i]));
    CHECK_MSG(bad == 0, "params_low is not the fp16 rounding of params in %zu places", bad);
}

static void check_skip(fixture *f, fc_optimizer *o, size_t where, float bad_value,
                       float scale_after, size_t skipped_after) {
    set_grads(f, o->scaler.scale);
    f->m->grads[where] = bad_value;
    float *p = snapshot(f->m->params, f->n), *mm = snapshot(o->m, f->n), *vv = snapshot(o->v, f->n);
    float *lo = snapshot(f->m->params_low, f->n);
    int64_t steps = o->adam_steps;
    fc_step_report r;
    CHECK(fc_optimizer_step(o, f->m, 1e-3f, &r) == FC_OK);
    CHECK_MSG(r.skipped == 1, "a %g gradient must skip the step", (double)bad_value);
    CHECK(isnan(r.grad_norm));
    CHECK_MSG(bits_differ(p, f->m->params, f->n) == 0, "a skipped step moved the parameters");
    CHECK(bits_differ(mm, o->m, f->n) == 0 && bits_differ(vv, o->v, f->n) == 0);
    CHECK(bits_differ(lo, f->m->params_low, f->n) == 0);
    CHECK(o->adam_steps == steps);
    CHECK_MSG(o->scaler.scale == scale_after, "scale %g, want %g", (double)o->scaler.scale,
              (double)scale_after);
    CHECK(o->scaler.skipped == skipped_after && o->scaler.growth_tracker == 0);
    free(p), free(mm), free(vv), free(lo);
}

static void test_step_scaled(void) {
    fixture f = fixture_make(FC_PREC_FP16);
    fc_optimizer o;
    CHECK(fc_optimizer_init(&o, f.m, 1, 0.0) == FC_OK);
    CHECK(fc_optimizer_loss_scale(&o) == S16);
    set_grads(&f, S16);
    double norm = norm_of(f.g, f.n);
    float *p0 = snapshot(f.m->params, f.n), lr = 1e-3f;
    fc_step_report r;
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK);
    CHECK(r.skipped == 0 && o.adam_steps == 1 && r.clip_coef == 1.0);
    CHECK_CLOSE(r.grad_norm, norm, 0, 1e-12);
    CHECK_MSG(bits_differ(f.m->grads, f.g, f.n) == 0, "unscaled grads are not exactly g");
    size_t bad = adam_first_step_off(&f, &o, p0, f.g, lr);
    CHECK_MSG(bad == 0, "Adam's first step after unscaling: %zu values off", bad);
    check_low_copies(&f);
    CHECK(o.scaler.scale == S16 && o.scaler.growth_tracker == 1);
    /* (iii) inf, then NaN: skipped, scale halved each time */
    check_skip(&f, &o, 12345, INFINITY, S16 / 2, 1);
    check_skip(&f, &o, 777, NAN, S16 / 4, 2);
    check_skip(&f, &o, f.n - 1, -INFINITY, S16 / 8, 3);
    /* the next clean step unscales by the CURRENT scale */
    set_grads(&f, o.scaler.scale);
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK && r.skipped == 0 && o.adam_steps == 2);
    CHECK(bits_differ(f.m->grads, f.g, f.n) == 0);
    /* the step on which the scale grows still unscales by the scale the
     * gradients were made with (the old one) */
    o.scaler.growth_tracker = o.scaler.growth_interval - 1;
    float before = o.scaler.scale;
    set_grads(&f, before);
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK && r.skipped == 0);
    CHECK(o.scaler.scale == 2 * before);
    CHECK_MSG(bits_differ(f.m->grads, f.g, f.n) == 0,
              "growth step: grads not unscaled by the old scale");
    CHECK_CLOSE(r.grad_norm, norm, 0, 1e-12);
    check_low_copies(&f);
    /* scaler and clipping: the coefficient comes from the unscaled norm */
    fc_optimizer_free(&o, f.m);
    CHECK(fc_optimizer_init(&o, f.m, 1, 1.0) == FC_OK);
    set_grads(&f, S16);
    CHECK(fc_optimizer_step(&o, f.m, lr, &r) == FC_OK && r.skipped == 0);
    CHECK_CLOSE(r.grad_norm, norm, 0, 1e-12);
    CHECK_CLOSE(r.clip_coef, 1.0 / (norm + 1e-6), 0, 1e-12);
    bad = grads_off(&f, 1.0 / (norm + 1e-6));
    CHECK_MSG(bad == 0, "unscaled and clipped grads: %zu of %zu off g * coef", bad, f.n);
    fc_optimizer_free(&o, f.m);
    free(p0);
    fixture_free(&f);
}

/* (iv) no scaler, clipping: a non-finite gradient is an error, and nothing moves. */
static void test_step_not_finite(void) {
    fixture f = fixture_make(FC_PREC_FP32);
    fc_optimizer o;
    CHECK(fc_optimizer_init(&o, f.m, 0, 1.0) == FC_OK);
    float *p0 = snapshot(f.m->params, f.n);
    float bad_values[2] = {INFINITY, NAN};
    for (int k = 0; k < 2; k++) {
        set_grads(&f, 1.0f);
        f.m->grads[4242] = bad_values[k];
        fc_step_report r;
        fc_error_clear();
        CHECK(fc_optimizer_step(&o, f.m, 1e-3f, &r) == FC_ERR_INVALID);
        CHECK_CONTAINS(fc_last_error(), "not finite");
        CHECK(r.skipped == 0 && o.adam_steps == 0 && o.scaler.scale == 1.0f);
        CHECK(bits_differ(p0, f.m->params, f.n) == 0);
    }
    fc_optimizer_free(&o, f.m);
    free(p0);
    fixture_free(&f);
}

int main(void) {
    test_scaler();
    test_clip_coefficient();
    test_step_clip();
    test_step_scaled();
    test_step_not_finite();
    return CHECK_DONE();
}
