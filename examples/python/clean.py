"""Word frequencies of a text file."""

import sys
from collections import Counter


def words(text):
    for raw in text.split():
        word = raw.strip(".,;:!?\"'()").lower()
        if word:
            yield word


def top(path, n=10):
    with open(path, encoding="utf-8") as handle:
        counts = Counter(words(handle.read()))
    return counts.most_common(n)


if __name__ == "__main__":
    for word, count in top(sys.argv[1]):
        print(f"{count:6d} {word}")
