#!/usr/bin/env python3
"""torch.optim.Adam and AdamW with weight decay, for tests/test_backend_cpu.c.

Prints the C initialisers of its adam_case table's weight-decay rows:
three steps of 4 parameters from p0 with the gradients g1, g2, g3, on CPU
(torch's single-tensor path), each value with %.9g so that the floats are
exact. p0[3] nearly cancels with the first update, which makes a 1-ulp
error in the step size visible. Run with torch installed:

    python3 python/make_adam_fixtures.py
"""
import torch

P0 = [0.5, -1.0, 2.0, 0.00099]
GRADS = [[0.1, -0.2, 0.0, 1.3], [0.3, 0.05, -1.5, -0.25], [-0.7, 0.0, 0.4, 0.02]]
# (optimizer, lr, betas, eps, weight_decay): AdamW at torch's default weight
# decay; AdamW with a decay that shows in the first digits; Adam's L2 with
# betas of the other lerp form (1 - beta1 >= 0.5)
CASES = [("AdamW", 1e-3, (0.9, 0.999), 1e-8, 0.01), ("AdamW", 0.05, (0.9, 0.999), 1e-8, 0.1),
         ("Adam", 0.05, (0.5, 0.9), 1e-6, 0.1)]


def c_floats(values):
    return "{" + ", ".join(f"{v:.9g}f" for v in values) + "}"


def main():
    print(f"/* torch {torch.__version__} */")
    for name, lr, betas, eps, wd in CASES:
        p = torch.nn.Parameter(torch.tensor(P0, dtype=torch.float32))
        opt = getattr(torch.optim, name)([p], lr=lr, betas=betas, eps=eps, weight_decay=wd)
        after = []
        for g in GRADS:
            p.grad = torch.tensor(g, dtype=torch.float32)
            opt.step()
            after.append(p.detach().tolist())
        state = opt.state[p]
        kind = "FC_OPTIMIZER_ADAMW" if name == "AdamW" else "FC_OPTIMIZER_ADAM"
        print(f"    {{{lr}f, {betas[0]}f, {betas[1]}f, {eps}f, {wd}f, {kind},")
        print("     {" + ",\n      ".join(c_floats(a) for a in after) + "},")
        print(f"     {c_floats(state['exp_avg'].tolist())},\n     {c_floats(state['exp_avg_sq'].tolist())}}},")


if __name__ == "__main__":
    main()
