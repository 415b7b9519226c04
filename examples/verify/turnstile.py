"""A tiny system under test: a coin-operated turnstile (the machine is turnstile.json)."""


class Turnstile:
    def __init__(self) -> None:
        self.locked = True
        self.coins = 0

    def coin(self) -> None:
        self.coins += 1
        self.locked = False

    def push(self) -> None:
        self.locked = True
