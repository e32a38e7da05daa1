"""The zip archive of a torch.save checkpoint, read with the checks torch's own reader makes.

torch reads these archives with the miniz library, whose documented checks differ from Python's zipfile:
zipfile accepts data in front of the archive (shifting every offset it reads), compares local header names and
rejects some end records miniz takes, while miniz finds records by a case-insensitive name, takes stored and
deflated records only, and checks each central directory entry against the file size. Reading with zipfile
made damaged files load here with other contents than in torch, so this reader makes miniz's decisions:

- the end of central directory record is the last one within the final 64 KiB (plus one 4 KiB search block);
  a zip64 locator just before it leads to the zip64 end record;
- the entry counts must agree (one disk), the central directory must fit in the file and hold 46 bytes per
  entry, and every entry must start with its signature, fit in the directory, name an existing disk, not be
  masked, have its data inside the file and, when stored (method and time fields both zero), equal sizes;
- a record is found by its full name, ASCII letters compared without case; reading it takes the method
  (stored or deflate), the flags (no encryption, no patch data), its local header signature, and its data
  inside the file.

Beyond torch (docs/loading-files.md): the CRC-32 of every record read is checked (torch's build skips it); a
name more than one record answers to is an error (torch reads one of them, chosen by the order its index sorts
them in); and a record torch would hand over without reading (a directory, or deflated data that does not
inflate to its size) is an error rather than uninitialized memory.
"""
import struct
import zlib

import numpy as np

_END_SIGNATURE, _END_SIZE = b"PK\x05\x06", 22
_LOCATOR_SIGNATURE, _LOCATOR_SIZE = b"PK\x06\x07", 20
_ZIP64_END_SIGNATURE, _ZIP64_END_SIZE = b"PK\x06\x06", 56
_CENTRAL_SIGNATURE, _CENTRAL_SIZE = b"PK\x01\x02", 46
_LOCAL_SIGNATURE, _LOCAL_SIZE = b"PK\x03\x04", 30
_MAX32 = 0xFFFFFFFF
_ENCRYPTED, _PATCHED, _STRONG_ENCRYPTION, _MASKED = 0x1, 0x20, 0x40, 0x2000
_STORED, _DEFLATED = 0, 8
_DIRECTORY_ATTRIBUTE = 0x10
_SEARCH_BLOCK, _SEARCH_SPAN = 4096, 0xFFFF + _END_SIZE  # how far back the end record is looked for
_MAX_INFLATION = 1032  # deflate's largest output per input byte
_CHUNK = 1 << 24


def _u16(data, offset):
    return struct.unpack_from("<H", data, offset)[0]


def _u32(data, offset):
    return struct.unpack_from("<I", data, offset)[0]


def _u64(data, offset):
    return struct.unpack_from("<Q", data, offset)[0]


def c_string(name):
    """`name` as a C string: up to its first NUL byte (torch passes record names through C strings)."""
    end = name.find(b"\0")
    return name if end < 0 else name[:end]


class Entry:
    """One central directory entry, with the fields as stored (32-bit sizes; zip64 ones are resolved on read)."""

    __slots__ = ("name", "flags", "method", "method_and_time", "crc", "compressed", "size", "header_offset",
                 "extra", "external")

    def __init__(self, header, name, extra):
        self.name, self.extra = name, extra
        self.flags, self.method = _u16(header, 8), _u16(header, 10)
        self.method_and_time = _u32(header, 10)
        self.crc, self.compressed, self.size = _u32(header, 16), _u32(header, 20), _u32(header, 24)
        self.external, self.header_offset = _u32(header, 38), _u32(header, 42)


class ZipArchive:
    """A torch checkpoint's zip archive on a seekable binary file; `source` names the file in errors."""

    def __init__(self, fileobj, source):
        self._file, self.source = fileobj, source
        self._start = fileobj.tell()
        self.size = fileobj.seek(0, 2) - self._start
        self.entries = self._central_directory()
        self._by_name = {}
        for entry in self.entries:
            self._by_name.setdefault(entry.name.lower(), []).append(entry)

    # --- errors and raw reads -----------------------------------------------------------------------------

    def error(self, what):
        return RuntimeError(f"torch.load: {self.source} is damaged or not a torch.save checkpoint: {what}")

    def _read(self, offset, count):
        self._file.seek(self._start + offset)
        return self._file.read(count)

    def _read_exactly(self, offset, count, what):
        data = self._read(offset, count) if offset + count <= self.size else b""
        if len(data) != count:
            raise self.error(f"{what} lies beyond the end of the file ({self.size} bytes)")
        return data

    # --- the central directory ----------------------------------------------------------------------------

    def _end_record_offset(self):
        if self.size < _END_SIZE:
            raise self.error(f"the file has {self.size} bytes, fewer than a zip end record")
        # the search walks back in blocks until it has covered the last 64 KiB
        low = max(self.size - _SEARCH_BLOCK, 0)
        while low and self.size - low < _SEARCH_SPAN:
            low = max(low - (_SEARCH_BLOCK - 3), 0)
        tail = self._read(low, self.size - low)
        found = tail.rfind(_END_SIGNATURE, 0, len(tail) - _END_SIZE + 4)
        if found < 0:
            raise self.error("no end of central directory record")
        return low + found

    def _zip64_end(self, end_offset):
        """The zip64 end record and its locator, when a locator sits right before the end record."""
        if end_offset < _LOCATOR_SIZE + _ZIP64_END_SIZE:
            return None
        locator = self._read(end_offset - _LOCATOR_SIZE, _LOCATOR_SIZE)
        if len(locator) != _LOCATOR_SIZE or locator[:4] != _LOCATOR_SIGNATURE:
            return None
        offset = _u64(locator, 8)
        if offset > self.size - _ZIP64_END_SIZE:
            raise self.error("the zip64 end record lies beyond the end of the file")
        record = self._read(offset, _ZIP64_END_SIZE)
        if len(record) != _ZIP64_END_SIZE or record[:4] != _ZIP64_END_SIGNATURE:
            return None
        return locator, record

    def _central_directory(self):
        end_offset = self._end_record_offset()
        end = self._read(end_offset, _END_SIZE)
        this_disk, directory_disk = _u16(end, 4), _u16(end, 6)
        on_this_disk, count = _u16(end, 8), _u16(end, 10)
        directory_size, directory_offset = _u32(end, 12), _u32(end, 16)
        zip64 = self._zip64_end(end_offset)
        if zip64 is not None:
            locator, record = zip64
            if _u64(record, 4) < _ZIP64_END_SIZE - 12:
                raise self.error("the zip64 end record is too short")
            if _u32(locator, 16) != 1:
                raise self.error("the archive spans several disks")
            count, on_this_disk = _u64(record, 32), _u64(record, 24)
            if count > _MAX32 or on_this_disk > _MAX32:
                raise self.error("the zip64 end record counts more than 2^32 entries")
            directory_size = _u64(record, 40)
            if directory_size > _MAX32:
                raise self.error("the central directory is larger than 4 GiB")
            this_disk, directory_disk = _u32(record, 16), _u32(record, 20)
            directory_offset = _u64(record, 48)
        if count != on_this_disk or ((this_disk or directory_disk) and (this_disk != 1 or directory_disk != 1)):
            raise self.error("the archive spans several disks")
        if directory_size < count * _CENTRAL_SIZE or directory_offset + directory_size > self.size:
            raise self.error(f"the end record's central directory ({count} entries, {directory_size} bytes at "
                             f"{directory_offset}) does not fit in the file")
        if count == 0:
            raise self.error("the archive holds no records")
        directory = self._read_exactly(directory_offset, directory_size, "the central directory")
        return [self._entry(directory, position, this_disk) for position in self._entry_positions(directory, count)]

    def _entry_positions(self, directory, count):
        position = 0
        for index in range(count):
            left = len(directory) - position
            header = directory[position:position + _CENTRAL_SIZE]
            if left < _CENTRAL_SIZE or header[:4] != _CENTRAL_SIGNATURE:
                raise self.error(f"central directory entry {index} is damaged (no signature)")
            length = _CENTRAL_SIZE + _u16(header, 28) + _u16(header, 30) + _u16(header, 32)
            if length > left:
                raise self.error(f"central directory entry {index} runs past the directory's end")
            yield position
            position += length

    def _entry(self, directory, position, this_disk):
        header = directory[position:position + _CENTRAL_SIZE]
        name_end = position + _CENTRAL_SIZE + _u16(header, 28)
        entry = Entry(header, directory[position + _CENTRAL_SIZE:name_end],
                      directory[name_end:name_end + _u16(header, 30)])
        compressed, size, offset = entry.compressed, entry.size, entry.header_offset
        size, compressed, offset = self._zip64_sizes(entry, size, compressed, offset, strict=False)
        if compressed != _MAX32 and size != _MAX32:
            if (entry.method_and_time == 0 and size != compressed) or (size and not compressed):
                raise self.error(f"record {entry.name!r} is stored with a size unequal to its compressed size")
        disk = _u16(header, 34)
        if disk == 0xFFFF or (disk != this_disk and disk != 1):
            raise self.error(f"record {entry.name!r} lies on another disk")
        if compressed != _MAX32 and offset + _LOCAL_SIZE + compressed > self.size:
            raise self.error(f"record {entry.name!r} ({compressed} bytes at {offset}) lies beyond the end of the file")
        if entry.flags & _MASKED:
            raise self.error(f"record {entry.name!r} has a masked (encrypted) header")
        return entry

    def _zip64_sizes(self, entry, size, compressed, offset, strict):
        """The 64-bit size, compressed size and header offset from the zip64 extra field of `entry` (each only
        where the 32-bit field is 0xFFFFFFFF). `strict`: a zip64 field too short for them is an error (when a
        record is read) rather than leaving the fields as they are (when the directory is scanned)."""
        extra, position = entry.extra, 0
        if _MAX32 not in (size, compressed, offset):
            return size, compressed, offset
        while position < len(extra):
            left = len(extra) - position
            if left < 4 or _u16(extra, position + 2) + 4 > left:
                raise self.error(f"record {entry.name!r} has a damaged extra field")
            if _u16(extra, position) == 1:
                end = position + 4 + _u16(extra, position + 2) if strict else len(extra)
                values, at = [], position + 4
                for value in (size, compressed, offset):
                    if value == _MAX32:
                        if at + 8 > end:
                            if strict:
                                raise self.error(f"record {entry.name!r} has a damaged zip64 extra field")
                            break
                        value, at = _u64(extra, at), at + 8
                    values.append(value)
                values += [size, compressed, offset][len(values):]
                return tuple(values)
            position += 4 + _u16(extra, position + 2)
        return size, compressed, offset

    # --- records ------------------------------------------------------------------------------------------

    def has(self, name):
        """Whether torch's lookup of `name` (bytes) finds a record."""
        return c_string(name).lower() in self._by_name

    def find(self, name):
        """The entry torch's lookup of `name` (bytes) finds, None if there is none; an error when several
        entries answer to it."""
        found = self._by_name.get(c_string(name).lower(), [])
        if len(found) > 1:
            shown = ", ".join(repr(e.name.decode("utf-8", "replace")) for e in found)
            raise self.error(f"{len(found)} records named {shown} (torch would read one of them)")
        return found[0] if found else None

    def _stat(self, entry):
        """(size, compressed size, header offset) of `entry`, after the checks torch's reader makes whenever it
        looks at a record's metadata (zip64 fields, a method and flags it can read)."""
        size, compressed, offset = self._zip64_sizes(entry, entry.size, entry.compressed, entry.header_offset,
                                                     strict=True)
        name = entry.name.decode("utf-8", "replace")
        if entry.method not in (_STORED, _DEFLATED):
            raise self.error(f"record {name} uses compression method {entry.method} (only stored and deflate "
                             "records can be read)")
        if entry.flags & (_ENCRYPTED | _STRONG_ENCRYPTION | _PATCHED):
            raise self.error(f"record {name} is encrypted or patch data")
        return size, compressed, offset

    def data_offset(self, entry):
        """Where the data of `entry` starts, found as torch finds it for a meta load: from the lengths in the local
        header, whose signature it does not check."""
        offset = self._stat(entry)[2]
        header = self._read_exactly(offset, _LOCAL_SIZE, f"the local header of {entry.name!r}")
        return offset + _LOCAL_SIZE + _u16(header, 26) + _u16(header, 28)

    def _located(self, entry):
        """(size, compressed size, offset of the data) of `entry` once the checks before reading its data
        have passed."""
        size, compressed, offset = self._stat(entry)
        name = entry.name.decode("utf-8", "replace")
        if entry.name.endswith(b"/") or entry.external & _DIRECTORY_ATTRIBUTE or not compressed:
            if size:
                raise self.error(f"record {name} is marked as a directory or holds no data, yet claims {size} "
                                 "bytes (torch would hand over uninitialized memory)")
            return 0, 0, 0
        header = self._read_exactly(offset, _LOCAL_SIZE, f"the local header of {name}")
        if header[:4] != _LOCAL_SIGNATURE:
            raise self.error(f"the local header of record {name} is damaged (no signature)")
        start = offset + _LOCAL_SIZE + _u16(header, 26) + _u16(header, 28)
        if start + compressed > self.size or (entry.method == _STORED and start + size > self.size):
            raise self.error(f"the data of record {name} lies beyond the end of the file")
        if entry.method == _DEFLATED and size > compressed * _MAX_INFLATION + 1024:
            raise self.error(f"deflated record {name} does not inflate to the {size} bytes it claims (its "
                             f"{compressed} compressed bytes cannot give that many)")
        return size, compressed, start

    def read(self, entry):
        """The bytes of `entry`."""
        return self.read_record(entry).tobytes()

    def read_record(self, entry, expected_size=None):
        """The bytes of `entry` as a new uint8 array, allocated once the record's data is known to be in the
        file; with `expected_size`, an error unless the record holds exactly that many bytes."""
        size, compressed, start = self._located(entry)
        if expected_size is not None and size != expected_size:
            raise self.error(f"record {entry.name.decode('utf-8', 'replace')} holds {size} bytes, but the storage "
                             f"that names it needs {expected_size} (torch: record size does not match expected size)")
        buffer = np.empty(size, dtype=np.uint8)
        self._extract(entry, start, compressed, memoryview(buffer))
        return buffer

    def _extract(self, entry, start, compressed, out):
        name = entry.name.decode("utf-8", "replace")
        if not len(out):
            return
        if entry.method == _STORED:
            crc = self._copy(start, out)
        else:
            crc = self._inflate(start, start + compressed, out, name)
        if crc != entry.crc:
            raise self.error(f"record {name} fails its CRC-32 check (torch does not check it; the bytes differ "
                             "from those the archive was written with)")

    def _copy(self, start, out):
        self._file.seek(self._start + start)
        crc, filled = 0, 0
        readinto = getattr(self._file, "readinto", None)
        while filled < len(out):
            piece = out[filled:filled + _CHUNK]
            if readinto is not None:
                got = readinto(piece)
            else:  # (a file object without readinto)
                data = self._file.read(len(piece))
                piece[:len(data)] = data
                got = len(data)
            if not got:
                raise self.error(f"the file ended {len(out) - filled} bytes early")
            crc = zlib.crc32(piece[:got], crc)
            filled += got
        return crc

    def _inflate(self, start, end, out, name):
        inflater, crc, filled, position = zlib.decompressobj(-15), 0, 0, start
        while not inflater.eof:
            if inflater.unconsumed_tail:
                data = inflater.unconsumed_tail
            elif position < end:
                data = self._read(position, min(_CHUNK, end - position))
                position += len(data)
            else:
                break
            try:
                piece = inflater.decompress(data, len(out) - filled + 1)
            except zlib.error as exc:
                raise self.error(f"deflated record {name} does not inflate ({exc})") from None
            if filled + len(piece) > len(out):
                raise self.error(f"deflated record {name} does not inflate to its {len(out)} bytes (it gives more)")
            out[filled:filled + len(piece)] = piece
            crc = zlib.crc32(piece, crc)
            filled += len(piece)
        if not inflater.eof or filled != len(out):
            raise self.error(f"deflated record {name} does not inflate to its {len(out)} bytes")
        return crc
