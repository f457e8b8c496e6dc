"""PLACEHOLDER written by the lead so the store imports; the tokens helper replaces this file."""


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4
