"""Small PDFs made in the tests: a page per text (Helvetica, ASCII), or pages with no text
at all, as a scanner makes them (a real file pypdf reads, not a stand-in); and a hostile one
whose pages share one stream that decodes to megabytes."""

from __future__ import annotations

import zlib


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[str]) -> bytes:
    """A PDF whose page k shows `pages[k]` (lines split on newlines); an empty string makes
    a page with no text."""
    objects: list[bytes] = []
    count = len(pages)
    font = 3 + 2 * count
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    for i, page in enumerate(pages):
        lines = [f"({_escape(line)}) Tj 0 -14 Td" for line in page.splitlines()]
        stream = ("BT /F1 12 Tf 72 720 Td " + " ".join(lines) + " ET").encode() if lines \
            else b""
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                       f"<< /Font << /F1 {font} 0 R >> >> /Contents {4 + 2 * i} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return _assemble(objects)


def _assemble(objects: list[bytes]) -> bytes:
    """The file of `objects` (numbered from 1; the first is the catalog)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def make_shared_stream_pdf(pages: int, decoded_bytes: int) -> bytes:
    """A hostile PDF: `pages` pages that all show one Flate stream, which decodes to about
    `decoded_bytes` of text-drawing operators (each page makes a reader parse all of it)."""
    words = [f"w{n * 7919 % 10007:x}" for n in range(997)]
    ops, size, i = [b"BT /F1 12 Tf 72 720 Td"], 0, 0
    while size < decoded_bytes:
        op = b"(%s %s %s) Tj 0 -14 Td" % tuple(words[(i + k) % 997].encode() for k in (0, 3, 7))
        ops.append(op)
        size += len(op) + 1
        i += 11
    content = zlib.compress(b"\n".join([*ops, b"ET"]), 9)
    kids = " ".join(f"{4 + i} 0 R" for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream"
               % (len(content), content)]
    font = 4 + pages
    objects += [f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                f"<< /Font << /F1 {font} 0 R >> >> /Contents 3 0 R >>".encode()] * pages
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return _assemble(objects)
