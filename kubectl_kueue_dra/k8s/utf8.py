"""Text that must be UTF-8 (YAML and JSON are): a file with other bytes is named, with where the
first bad byte is, instead of an ``UnicodeDecodeError`` or a silent U+FFFD in its place."""


class NotUtf8(ValueError):
    """The bytes are not UTF-8; ``str(e)`` says where (``line L, column C: byte 0xNN``)."""


def utf8_text(data: bytes) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark is dropped), else ``NotUtf8``."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        before = data[:e.start]
        line = before.count(b"\n") + 1
        column = e.start - (before.rfind(b"\n") + 1) + 1
        raise NotUtf8(f"not UTF-8 text (byte 0x{data[e.start]:02x} at line {line}, column {column})") from None
