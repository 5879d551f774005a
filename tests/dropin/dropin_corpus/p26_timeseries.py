import numpy as np

t = np.arange(30)
series = np.sin(t / 3.0) * 10 + t * 0.5
window = 5
ma = np.convolve(series, np.ones(window) / window, mode="valid")
print(ma.round(4), len(ma))
cs = np.cumsum(np.insert(series, 0, 0))
ma2 = (cs[window:] - cs[:-window]) / window
print(np.allclose(ma, ma2))
ema = np.zeros_like(series)
alpha = 0.3
ema[0] = series[0]
for i in range(1, len(series)):
    ema[i] = alpha * series[i] + (1 - alpha) * ema[i - 1]
print(ema[-5:].round(4))
peaks = np.where((series[1:-1] > series[:-2]) & (series[1:-1] > series[2:]))[0] + 1
print(peaks, series[peaks].round(3))
lagged = np.corrcoef(series[:-1], series[1:])[0, 1]
print(round(lagged, 6), np.diff(series, n=2)[:3].round(6), np.gradient(series)[:3].round(6))
norm = (series - series.min()) / (series.max() - series.min())
print(norm.min(), norm.max(), norm.argmax())
