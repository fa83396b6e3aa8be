"""Search spaces without ray or optuna: the distributions of ray.tune's
search space (choice, randint, uniform, loguniform, quniform; `from
fcast.auto import tune` stands for `from ray import tune`) and a Trial
with optuna's suggest_* methods, so that neuralforecast's Auto configs,
a dict of distributions or an optuna-style function of a trial, run on
fcast with neither library installed.

Draws come from numpy's generator, not ray's or optuna's streams: the
same seed gives the same trials on fcast, other values than ray's. (With
optuna installed, backend='optuna' calls a config with optuna's own
Trial instead: fcast/auto.py.)
"""
import math
import types

__all__ = ["tune", "Trial", "resolve"]


class _Domain:
    """A distribution of a dict config's value: drawn by `suggest`, each
    kind through the optuna-style call it is under optuna (what
    neuralforecast's _ray_config_to_optuna maps it to)."""

    def suggest(self, trial, name):
        raise NotImplementedError


class Choice(_Domain):
    def __init__(self, categories):
        self.categories = list(categories)

    def suggest(self, trial, name):
        return trial.suggest_categorical(name, self.categories)

    def __repr__(self):
        return f"choice({self.categories!r})"


class RandInt(_Domain):
    """ray's randint: upper exclusive (randint(1, 20) draws 1..19), as ray;
    optuna's suggest_int, which a config function calls, includes high."""

    def __init__(self, lower, upper):
        self.lower, self.upper = int(lower), int(upper)

    def suggest(self, trial, name):
        return trial.suggest_int(name, self.lower, self.upper - 1)

    def __repr__(self):
        return f"randint({self.lower}, {self.upper})"


class Uniform(_Domain):
    def __init__(self, lower, upper, log=False, q=None):
        self.lower, self.upper, self.log, self.q = float(lower), float(upper), log, q

    def suggest(self, trial, name):
        """A quantized log-uniform draws log-uniform, its step dropped, as
        neuralforecast's _ray_config_to_optuna (optuna's suggest_float takes
        no step with log)."""
        return trial.suggest_float(name, self.lower, self.upper, log=self.log, step=None if self.log else self.q)

    def __repr__(self):
        kind = "loguniform" if self.log else "quniform" if self.q else "uniform"
        return f"{kind}({self.lower}, {self.upper}{f', {self.q}' if self.q else ''})"


# ray.tune's names, for configs written as {"learning_rate": tune.loguniform(1e-4, 1e-1)}
tune = types.SimpleNamespace(
    choice=Choice, randint=RandInt, uniform=Uniform,
    loguniform=lambda lower, upper: Uniform(lower, upper, log=True),
    quniform=lambda lower, upper, q: Uniform(lower, upper, q=q))


def _from_ray(value):
    """A ray.tune Domain (when ray is installed and the user's config uses
    it) as fcast's, read from its public attributes; None when value is
    no ray Domain."""
    kind = type(value).__name__
    sampler = type(getattr(value, "sampler", None)).__name__
    if kind == "Categorical" and hasattr(value, "categories"):
        return Choice(value.categories)
    if kind == "Integer" and sampler == "_Uniform":
        return RandInt(value.lower, value.upper)
    if kind == "Float" and sampler in ("_Uniform", "_LogUniform"):
        return Uniform(value.lower, value.upper, log=sampler == "_LogUniform")
    if kind == "Float" and sampler == "Quantized":
        inner = type(value.sampler.get_sampler()).__name__
        return Uniform(value.lower, value.upper, log=inner == "_LogUniform", q=value.sampler.q)
    if hasattr(value, "sampler"):
        raise NotImplementedError(f"fcast: search space value {value!r} ({kind}, sampler {sampler}): fcast "
                                  "draws choice, randint, uniform, loguniform and quniform only")
    return None


class Trial:
    """What an optuna-style config function is given: optuna.Trial's
    suggest_* methods, drawing at random from rng. params holds the values
    drawn, by name, as optuna's trial.params."""

    def __init__(self, number, rng):
        self.number, self._rng, self.params = number, rng, {}

    def _keep(self, name, value):
        self.params[name] = value
        return value

    def suggest_categorical(self, name, choices):
        choices = list(choices)
        return self._keep(name, choices[int(self._rng.integers(len(choices)))])

    def suggest_int(self, name, low, high, step=1, log=False):
        """An integer of low..high (inclusive, as optuna's), every step-th;
        log: log-uniform, widened by half a step each side and rounded, as
        optuna's."""
        if log:
            value = round(math.exp(self._rng.uniform(math.log(low - 0.5), math.log(high + 0.5))))
            return self._keep(name, int(min(max(value, low), high)))
        return self._keep(name, int(low + step * self._rng.integers((high - low) // step + 1)))

    def suggest_float(self, name, low, high, step=None, log=False):
        if log:
            return self._keep(name, float(math.exp(self._rng.uniform(math.log(low), math.log(high)))))
        if step:
            return self._keep(name, float(low + step * self._rng.integers(int(round((high - low) / step)) + 1)))
        return self._keep(name, float(self._rng.uniform(low, high)))

    def suggest_uniform(self, name, low, high):
        return self.suggest_float(name, low, high)

    def suggest_loguniform(self, name, low, high):
        return self.suggest_float(name, low, high, log=True)

    def suggest_discrete_uniform(self, name, low, high, q):
        return self.suggest_float(name, low, high, step=q)


def resolve(config, trial):
    """One trial's values: a dict config's distributions drawn (in its key
    order, fixed values kept), or a config function called with trial."""
    if callable(config):
        return dict(config(trial))
    values = {}
    for name, value in config.items():
        domain = value if isinstance(value, _Domain) else _from_ray(value)
        values[name] = value if domain is None else domain.suggest(trial, name)
    return values
