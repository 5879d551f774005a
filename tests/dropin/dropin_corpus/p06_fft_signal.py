import numpy as np

fs = 100
t = np.arange(0, 1, 1 / fs)
sig = np.sin(2 * np.pi * 5 * t) + 0.5 * np.sin(2 * np.pi * 12 * t)
spec = np.fft.fft(sig)
freqs = np.fft.fftfreq(len(sig), 1 / fs)
mag = np.abs(spec)
peaks = freqs[np.argsort(mag)[-4:]]
print(np.sort(np.abs(peaks)))
r = np.fft.rfft(sig)
print(r.shape, r.dtype, np.fft.rfftfreq(len(sig), 1 / fs)[:5])
back = np.fft.irfft(r, n=len(sig))
print(np.allclose(back, sig))
print(np.round(np.fft.ifft(spec).real[:5], 6))
print(np.fft.fftshift(np.arange(6)), np.fft.ifftshift(np.arange(6)))
img = np.arange(16.0).reshape(4, 4)
F = np.fft.fft2(img)
print(np.round(np.abs(F), 4))
kernel = np.ones(5) / 5
smooth = np.convolve(sig, kernel, mode='same')
print(smooth[:5].round(6), smooth.shape)
print(np.convolve([1, 2, 3], [0, 1, 0.5]), np.convolve([1, 2, 3], [1, 1], 'valid'))
print(np.correlate([1, 2, 3], [0, 1, 0.5], 'full'))
zc = np.where(np.diff(np.sign(sig)))[0]
print(len(zc), zc[:5])
win = np.hanning(8)
print(win, np.hamming(4), np.blackman(3))
