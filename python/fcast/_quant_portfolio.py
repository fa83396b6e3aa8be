"""fcast.quant's constrained portfolios (re-exported by fcast.quant)."""
__all__ = []
