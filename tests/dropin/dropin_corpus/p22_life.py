import numpy as np

grid = np.zeros((8, 8), dtype=int)
grid[1, 2] = grid[2, 3] = grid[3, 1] = grid[3, 2] = grid[3, 3] = 1

def step(g):
    n = sum(np.roll(np.roll(g, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
    return ((n == 3) | ((g == 1) & (n == 2))).astype(int)

for t in range(4):
    grid = step(grid)
print(grid)
print(grid.sum(), np.argwhere(grid).tolist())
for row in grid:
    print("".join("#" if c else "." for c in row))
