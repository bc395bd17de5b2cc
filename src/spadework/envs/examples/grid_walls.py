"""Walk through a small walled grid to the goal, one step up, down, left or right at a time."""

from collections import deque

from spadework.envs import TextEnv

SIZE = 5
WALLS = 7
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}

Cell = tuple[int, int]


class GridWallsEnv(TextEnv):
    """A 5 x 5 map with walls; no single direction, repeated, leads to the goal."""

    max_turns = 30

    def new_episode(self) -> str:
        cells = [(row, col) for row in range(SIZE) for col in range(SIZE)]
        while True:
            self.start, self.goal = self.rng.sample(cells, 2)
            free = [cell for cell in cells if cell not in (self.start, self.goal)]
            self.walls = set(self.rng.sample(free, WALLS))
            route = self.route()
            if route is not None and len(route) >= 4 and not self.straight_line_reaches():
                break
        self.position = self.start
        return ("Reach the goal G on this map; you are A and # is a wall. Reply with one move: "
                f"up, down, left or right.\n{self.draw()}")

    def next_cell(self, cell: Cell, move: str) -> Cell | None:
        """Where ``move`` leads from ``cell``, or None when a wall or the edge is in the way."""
        d_row, d_col = MOVES[move]
        row, col = cell[0] + d_row, cell[1] + d_col
        inside = 0 <= row < SIZE and 0 <= col < SIZE
        return (row, col) if inside and (row, col) not in self.walls else None

    def route(self) -> list[str] | None:
        """The moves of a shortest route from the start to the goal (breadth-first search)."""
        came_from: dict[Cell, tuple[Cell, str] | None] = {self.start: None}
        frontier = deque([self.start])
        while frontier:
            cell = frontier.popleft()
            if cell == self.goal:
                moves = []
                while came_from[cell] is not None:
                    cell, move = came_from[cell]
                    moves.append(move)
                return moves[::-1]
            for move in MOVES:
                following = self.next_cell(cell, move)
                if following is not None and following not in came_from:
                    came_from[following] = (cell, move)
                    frontier.append(following)
        return None

    def straight_line_reaches(self) -> bool:
        """Whether repeating one move from the start passes the goal."""
        for move in MOVES:
            cell: Cell | None = self.start
            while cell is not None:
                if cell == self.goal:
                    return True
                cell = self.next_cell(cell, move)
        return False

    def draw(self) -> str:
        def mark(cell: Cell) -> str:
            if cell == self.position:
                return "A"
            return "G" if cell == self.goal else "#" if cell in self.walls else "."

        return "\n".join("".join(mark((row, col)) for col in range(SIZE)) for row in range(SIZE))

    def apply(self, action: str) -> tuple[str, float, bool]:
        move = action.lower()
        if move not in MOVES:
            return "Reply with one move: up, down, left or right.", 0.0, False
        following = self.next_cell(self.position, move)
        if following is None:
            return f"Something blocks the way {move}; you stay put.\n{self.draw()}", 0.0, False
        self.position = following
        if following == self.goal:
            return "You reached the goal.", 1.0, True
        return self.draw(), 0.0, False

    def solution(self) -> list[str]:
        return self.route() or []

    def hint(self) -> str:
        return (f"The shortest route takes {len(self.route() or [])} moves. Trace it on the map "
                "before moving: bumping into a wall wastes a turn.")
