"""fcast.quant's options beyond Black-Scholes (re-exported by fcast.quant):
implied volatility, American and barrier options, Monte Carlo Greeks."""
__all__ = []
