import numpy as np

n = 50
u = np.zeros(n)
u[n // 2 - 5:n // 2 + 5] = 1.0
alpha = 0.2
for step in range(100):
    u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
print(u.max().round(6), u.sum().round(6), np.argmax(u), u[20:30].round(4))
rule = 30
cells = np.zeros(31, dtype=np.uint8)
cells[15] = 1
rows = [cells]
for _ in range(8):
    l, c, r = np.roll(cells, 1), cells, np.roll(cells, -1)
    idx = (l << 2) | (c << 1) | r
    cells = ((rule >> idx) & 1).astype(np.uint8)
    rows.append(cells)
for row in rows:
    print("".join(".#"[v] for v in row))
pos = np.zeros((5, 2))
vel = np.array([[1.0, 0.5], [0.0, 1.0], [-1.0, 0.2], [0.3, -0.3], [0.0, 0.0]])
for t in range(10):
    pos += vel * 0.1
    vel[:, 1] -= 0.981 * 0.1
    hit = pos[:, 1] < 0
    vel[hit, 1] *= -0.8
    pos[hit, 1] = 0
print(pos.round(5), vel.round(5))
