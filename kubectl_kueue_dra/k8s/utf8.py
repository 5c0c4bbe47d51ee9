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


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def manifest_text(data: bytes) -> str:
    """The text of a YAML or JSON file as kubectl reads one with ``-f``: UTF-8, or UTF-16 when it
    begins with that byte-order mark (what Windows PowerShell 5's ``>`` writes); else ``NotUtf8``."""
    if data.startswith(_UTF16_BOMS):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as e:
            raise NotUtf8(f"not UTF-16 text, though it begins with a UTF-16 byte-order mark "
                          f"({e.reason} at byte {e.start})") from None
    return utf8_text(data)
