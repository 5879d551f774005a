import numpy as np

img = np.zeros((8, 8), dtype=np.uint8)
img[2:6, 2:6] = 200
img[3, 3] = 255
print(img)
print(img.dtype, img.max(), img.mean())
norm = img.astype(np.float32) / 255.0
print(norm.dtype, norm[3, 2:5])
kernel = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=float) / 16
padded = np.pad(norm, 1, mode='edge')
out = np.zeros_like(norm)
for i in range(norm.shape[0]):
    for j in range(norm.shape[1]):
        out[i, j] = (padded[i:i + 3, j:j + 3] * kernel).sum()
print(np.round(out, 3))
binary = (out > 0.5).astype(np.uint8)
print(binary, binary.sum())
print(np.flipud(img)[0], np.fliplr(img)[2], np.rot90(img)[2])
rgb = np.stack([img, img // 2, img // 4], axis=-1)
print(rgb.shape, rgb[3, 3], rgb.reshape(-1, 3).mean(axis=0))
gray = (0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]).astype(np.uint8)
print(gray[3])
clipped = np.clip(img.astype(int) + 100, 0, 255).astype(np.uint8)
print(clipped[3])
print(img[::2, ::2], np.transpose(rgb, (2, 0, 1)).shape)
over = img + img
print(over[3])
