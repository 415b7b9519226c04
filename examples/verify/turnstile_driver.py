"""The verification driver for turnstile.py: events become calls, states become assertions."""

from turnstile import Turnstile


def create() -> Turnstile:
    return Turnstile()


EVENTS = {
    "COIN": lambda sut, event: sut.coin(),
    "PUSH": lambda sut, event: sut.push(),
}

STATES = {
    "locked": lambda sut: sut.locked,
    "unlocked": lambda sut: not sut.locked,
}
