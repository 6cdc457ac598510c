"""A small TOML reader for Pythons without tomllib (before 3.11), stdlib only.

load(path) uses tomllib where it exists and this reader otherwise. The reader covers
the TOML that this repository writes (ptx-samples/fidelity/*.toml, the timing presets):
comments, [table] and [[array.of.tables]] headers with dotted names, bare and quoted
keys (dotted keys too), basic and literal strings (single line), integers (with _ and
0x/0o/0b), floats (inf, nan), booleans, arrays (over several lines, trailing commas) and
inline tables. Dates and multi-line strings are refused with a clear error.
`python3 minitoml.py FILE...` checks it against tomllib on the given files.
"""
import re
import sys

_NUM = re.compile(r"[+-]?(?:inf|nan|0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|"
                  r"[0-9_]+(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESC = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


class TomlError(ValueError):
    pass


class _Reader:
    def __init__(self, text):
        self.t = text
        self.i = 0

    def error(self, msg):
        line = self.t.count("\n", 0, self.i) + 1
        raise TomlError("line %d: %s" % (line, msg))

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else ""

    def skip_ws(self, newlines=False):
        """Skips blanks (and with newlines=True line ends and comments)."""
        while self.i < len(self.t):
            c = self.t[self.i]
            if c in " \t" or (newlines and c in "\r\n"):
                self.i += 1
            elif c == "#" and newlines:
                while self.i < len(self.t) and self.t[self.i] != "\n":
                    self.i += 1
            else:
                break

    def end_of_line(self):
        self.skip_ws()
        if self.peek() == "#":
            while self.i < len(self.t) and self.t[self.i] != "\n":
                self.i += 1
        if self.peek() not in ("", "\n", "\r"):
            self.error("unexpected %r after a value" % self.t[self.i:self.i + 20])

    def expect(self, c):
        if self.peek() != c:
            self.error("expected %r, found %r" % (c, self.t[self.i:self.i + 20]))
        self.i += 1

    def key(self):
        """A dotted key: list of parts."""
        parts = []
        while True:
            self.skip_ws()
            c = self.peek()
            if c in ('"', "'"):
                parts.append(self.string())
            else:
                m = _BARE.match(self.t, self.i)
                if not m:
                    self.error("expected a key")
                parts.append(m.group(0))
                self.i = m.end()
            self.skip_ws()
            if self.peek() != ".":
                return parts
            self.i += 1

    def string(self):
        q = self.peek()
        if self.t.startswith(q * 3, self.i):
            self.error("multi-line strings are not supported")
        self.i += 1
        out = []
        while True:
            c = self.peek()
            if c in ("", "\n"):
                self.error("unterminated string")
            self.i += 1
            if c == q:
                return "".join(out)
            if c == "\\" and q == '"':
                e = self.peek()
                self.i += 1
                if e in _ESC:
                    out.append(_ESC[e])
                elif e in ("u", "U"):
                    n = 4 if e == "u" else 8
                    out.append(chr(int(self.t[self.i:self.i + n], 16)))
                    self.i += n
                else:
                    self.error("bad escape \\%s" % e)
            else:
                out.append(c)

    def value(self):
        self.skip_ws()
        c = self.peek()
        if c in ('"', "'"):
            return self.string()
        if c == "[":
            self.i += 1
            arr = []
            while True:
                self.skip_ws(newlines=True)
                if self.peek() == "]":
                    self.i += 1
                    return arr
                arr.append(self.value())
                self.skip_ws(newlines=True)
                if self.peek() == ",":
                    self.i += 1
                elif self.peek() != "]":
                    self.error("expected ',' or ']' in an array")
        if c == "{":
            self.i += 1
            tab = {}
            self.skip_ws()
            if self.peek() == "}":
                self.i += 1
                return tab
            while True:
                k = self.key()
                self.expect("=")
                _assign(self, tab, k, self.value())
                self.skip_ws()
                if self.peek() == ",":
                    self.i += 1
                elif self.peek() == "}":
                    self.i += 1
                    return tab
                else:
                    self.error("expected ',' or '}' in an inline table")
        for word, v in (("true", True), ("false", False)):
            if self.t.startswith(word, self.i):
                self.i += len(word)
                return v
        m = _NUM.match(self.t, self.i)
        if not m or not m.group(0):
            self.error("unsupported value %r" % self.t[self.i:self.i + 20])
        s = m.group(0)
        self.i = m.end()
        if self.peek() in ("-", ":") or (self.peek() == "T" and "." not in s):
            self.error("dates and times are not supported")
        s = s.replace("_", "")
        body = s.lstrip("+-")
        if body in ("inf", "nan"):
            return float(s)
        if body[:2] in ("0x", "0o", "0b"):
            v = int(body, 0)
            return -v if s.startswith("-") else v
        if any(ch in s for ch in ".eE"):
            return float(s)
        return int(s, 10)


def _assign(r, table, parts, value):
    for p in parts[:-1]:
        table = table.setdefault(p, {})
        if not isinstance(table, dict):
            r.error("key %s is not a table" % ".".join(parts))
    if parts[-1] in table:
        r.error("duplicate key %s" % ".".join(parts))
    table[parts[-1]] = value


def _table(r, root, parts, array):
    t = root
    for p in parts[:-1]:
        t = t.setdefault(p, {})
        if isinstance(t, list):
            t = t[-1]
    last = parts[-1]
    if array:
        lst = t.setdefault(last, [])
        if not isinstance(lst, list):
            r.error("%s is not an array of tables" % ".".join(parts))
        lst.append({})
        return lst[-1]
    t = t.setdefault(last, {})
    if isinstance(t, list):
        r.error("%s is an array of tables" % ".".join(parts))
    return t


def loads(text):
    r = _Reader(text)
    root = {}
    cur = root
    while True:
        r.skip_ws(newlines=True)
        if r.i >= len(r.t):
            return root
        if r.t.startswith("[[", r.i):
            r.i += 2
            parts = r.key()
            r.expect("]")
            r.expect("]")
            cur = _table(r, root, parts, True)
        elif r.peek() == "[":
            r.i += 1
            parts = r.key()
            r.expect("]")
            cur = _table(r, root, parts, False)
        else:
            k = r.key()
            r.expect("=")
            _assign(r, cur, k, r.value())
        r.end_of_line()


def load(path):
    """Parses a TOML file: tomllib where available, else this reader."""
    try:
        import tomllib
    except ImportError:
        with open(path, encoding="utf-8") as f:
            return loads(f.read())
    with open(path, "rb") as f:
        return tomllib.load(f)


def check_against_tomllib(paths):
    """Returns a list of files where this reader and tomllib disagree (None without tomllib)."""
    try:
        import tomllib
    except ImportError:
        return None
    bad = []
    for p in paths:
        with open(p, "rb") as f:
            want = tomllib.load(f)
        with open(p, encoding="utf-8") as f:
            try:
                got = loads(f.read())
            except TomlError as e:
                got = e
        if repr(got) != repr(want):
            bad.append("%s (%s)" % (p, got) if isinstance(got, TomlError) else p)
    return bad


if __name__ == "__main__":
    res = check_against_tomllib(sys.argv[1:])
    if res is None:
        print("no tomllib in this Python: nothing to compare")
        sys.exit(0)
    print("%d files, %d differ%s" % (len(sys.argv) - 1, len(res), (": " + ", ".join(res)) if res else ""))
    sys.exit(1 if res else 0)
