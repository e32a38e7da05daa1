"""Seeded mutants of checkpoint files, for comparing what torch.load makes of damaged or unusual files.

`zip_mutants(data, seed, count)` and `legacy_mutants(data, itemsizes, seed, count)` return `count` (name, bytes)
pairs made from a file real torch wrote, and the file they were made from: byte flips in the zip's local
headers, central directory and end record, truncations, appended and prepended bytes, duplicated, removed and
renamed records, renamed location tags, changed version / byteorder / .storage_alignment records, compression
methods, extra fields and zip64 records, edited pickle opcodes (requires_grad, sizes, strides, offsets, storage
keys, element counts, values of another type), and for the pre-1.6 format changed storage element counts, key
lists and headers. The operators take turns, each drawing from a `random.Random` seeded by (seed, mutant index),
so a mutant is the same on every run.
"""
import io
import pickle
import pickletools
import random
import struct
import warnings
import zipfile

LOCATION_TAGS = ["bogus", "xla:0", "cuda:0", "cuda", "cuda:1", "meta", "mps", "CPU", "cpu:0", "hpu", "xpu:0",
                 "privateuseone", "npu:0", ""]
VERSIONS = [None, b"99\n", b"0\n", b"1\n", b"10\n", b"11\n", b"abc", b"3abc", b"  3", b"-1", b"+3", b"",
            b"18446744073709551616", b"3\x00", b"\n3"]

# --- pickles ------------------------------------------------------------------------------------------------


def pickle_ops(data):
    """(opcode name, argument, start, end) of each opcode of the pickle `data` (which may be followed by more)."""
    ops = []
    found = list(pickletools.genops(data))
    for index, (op, arg, pos) in enumerate(found):
        end = found[index + 1][2] if index + 1 < len(found) else pos + 1
        ops.append((op.name, arg, pos, end))
    return ops


def _unicode(text):
    encoded = text.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(encoded)) + encoded


def _replace(data, start, end, new):
    return data[:start] + new + data[end:]


def edit_pickle(rng, data):
    """One semantic edit of a torch pickle: a location tag, requires_grad, a number (size, stride, offset,
    numel), a storage key, or a random byte. Returns (what, new pickle bytes)."""
    ops = pickle_ops(data)
    kinds = ["location", "requires_grad", "int1", "int", "key", "byte", "drop_op", "retype"]
    for _ in range(20):
        kind = rng.choice(kinds)
        if kind == "location":
            places = [o for o in ops if o[0] == "BINUNICODE" and o[1] == "cpu"]
            if places:
                tag = rng.choice(LOCATION_TAGS)
                _, _, start, end = rng.choice(places)
                return f"location-{tag or 'empty'}", _replace(data, start, end, _unicode(tag))
        elif kind == "requires_grad":
            places = [o for o in ops if o[0] == "NEWFALSE"]
            if places:
                index = rng.randrange(len(places))
                _, _, start, end = places[index]
                return f"requires_grad-{index}", _replace(data, start, end, pickle.NEWTRUE)
        elif kind == "int1":
            places = [o for o in ops if o[0] == "BININT1"]
            if places:
                index = rng.randrange(len(places))
                _, value, start, end = places[index]
                new = rng.choice([0, 1, 2, 255, value + 1, max(value - 1, 0), value * 2 % 256])
                return f"int1-{index}-{value}to{new}", _replace(data, start, end, pickle.BININT1 + bytes([new]))
        elif kind == "int":
            places = [o for o in ops if o[0] in ("BININT1", "BININT2", "BININT")]
            if places:
                index = rng.randrange(len(places))
                _, value, start, end = places[index]
                new = rng.choice([-1, -(2 ** 31), 2 ** 31 - 1, 2 ** 20, value + 10 ** 6, 65536])
                return f"int-{index}-{value}to{new}", _replace(data, start, end, pickle.BININT + struct.pack("<i", new))
        elif kind == "key":
            places = [o for o in ops if o[0] == "BINUNICODE" and o[1].isdigit() and len(o[1]) < 4]
            if places:
                _, key, start, end = rng.choice(places)
                new = rng.choice([str(int(key) + 1), "99", key + "0", "-1"])
                return f"key-{key}to{new}", _replace(data, start, end, _unicode(new))
        elif kind == "byte":
            pos = rng.randrange(2, len(data))
            return f"pickle-byte-{pos}", flip(rng, data, pos)
        elif kind == "retype":
            # a value of another type where the pickle had a number, string or flag
            places = [o for o in ops if o[0] in ("BININT1", "BININT2", "BININT", "BINUNICODE", "NEWFALSE")]
            if places:
                index = rng.randrange(len(places))
                name, _, start, end = places[index]
                new = rng.choice([pickle.NONE, pickle.NEWTRUE, pickle.BINFLOAT + struct.pack(">d", 1.0),
                                  pickle.EMPTY_TUPLE, pickle.BININT + struct.pack("<i", -1),
                                  pickle.SHORT_BINBYTES + b"\x03cpu", _unicode("0")])
                return f"retype-{name}-{index}", _replace(data, start, end, new)
        elif kind == "drop_op":
            index = rng.randrange(1, len(ops) - 1)
            _, _, start, end = ops[index]
            return f"drop-{ops[index][0]}-{index}", _replace(data, start, end, b"")
    return "pickle-byte-2", flip(rng, data, 2)


def flip(rng, data, pos):
    """`data` with the byte at `pos` changed (XOR with a random nonzero value)."""
    return data[:pos] + bytes([data[pos] ^ rng.randrange(1, 256)]) + data[pos + 1:]


# --- zip archives -------------------------------------------------------------------------------------------


class ZipLayout:
    """Where the records of a well-formed (non-zip64) archive sit: per entry its central directory entry, its
    local header and its data."""

    def __init__(self, data):
        self.eocd = data.rindex(b"PK\x05\x06")
        count, self.cd_size, self.cd_offset = struct.unpack_from("<HII", data, self.eocd + 10)
        self.entries = []
        pos = self.cd_offset
        for _ in range(count):
            method, crc, csize, usize, nlen, elen, clen = struct.unpack_from("<H4xIIIHHH", data, pos + 10)
            local = struct.unpack_from("<I", data, pos + 42)[0]
            lnlen, lelen = struct.unpack_from("<HH", data, local + 26)
            self.entries.append({
                "name": data[pos + 46:pos + 46 + nlen].decode(), "central": pos, "central_len": 46 + nlen + elen + clen,
                "local": local, "local_len": 30 + lnlen + lelen, "data": local + 30 + lnlen + lelen, "size": csize,
                "method": method})
            pos += 46 + nlen + elen + clen

    def records(self, data):
        return [(e["name"], data[e["data"]:e["data"] + e["size"]]) for e in self.entries]

    def entry(self, suffix):
        for e in self.entries:
            if e["name"].endswith(suffix):
                return e
        return None


def build_zip(records):
    """A stored zip archive of (name, bytes) records in this order (duplicates allowed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zipfile warns about duplicate names, which some mutants have)
        for name, payload in records:
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), payload)
    return out.getvalue()


def _patch_both(data, entry, central_offset, local_offset, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, entry["central"] + central_offset, value)
    if local_offset is not None:
        struct.pack_into(fmt, data, entry["local"] + local_offset, value)
    return bytes(data)


def _set_record(records, suffix, payload):
    """Records with the one ending in `suffix` replaced by `payload` (removed when None)."""
    out = []
    for name, old in records:
        if name.endswith(suffix):
            if payload is not None:
                out.append((name, payload))
        else:
            out.append((name, old))
    return out


def _zip_ops():
    def flip_local(rng, data, layout):
        e = rng.choice(layout.entries)
        return f"flip-local-{e['name']}", flip(rng, data, e["local"] + rng.randrange(e["local_len"]))

    def flip_central(rng, data, layout):
        e = rng.choice(layout.entries)
        return f"flip-central-{e['name']}", flip(rng, data, e["central"] + rng.randrange(e["central_len"]))

    def flip_end_record(rng, data, layout):
        pos = layout.eocd + rng.randrange(len(data) - layout.eocd)
        return f"flip-end-{pos - layout.eocd}", flip(rng, data, pos)

    def flip_anywhere(rng, data, layout):
        pos = rng.randrange(len(data))
        return f"flip-{pos}", flip(rng, data, pos)

    def truncate(rng, data, layout):
        cut = rng.choice([rng.randrange(len(data)), len(data) - rng.randrange(1, 40), rng.randrange(1, 64)])
        return f"truncate-{cut}", data[:cut]

    def append(rng, data, layout):
        tail = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 48)))
        if rng.random() < 0.3:
            tail += data[layout.eocd:]  # a second end record
        return f"append-{len(tail)}", data + tail

    def duplicate(rng, data, layout):
        records = layout.records(data)
        index = rng.randrange(len(records))
        name, payload = records[index]
        if name.endswith("/version"):
            other = b"99\n"
        elif name.endswith("/byteorder"):
            other = b"big"
        elif "/data/" in name:
            other = bytes(rng.randrange(256) for _ in payload)
        elif name.endswith("data.pkl"):
            other = pickle.dumps({"replaced": 1}, protocol=2)
        else:
            other = payload[::-1]
        position = rng.choice([index, index + 1, len(records)])
        records.insert(position, (name, other))
        return f"duplicate-{name}-at{position}", build_zip(records)

    def location(rng, data, layout):
        records = layout.records(data)
        e = layout.entry("data.pkl")
        what, new = edit_pickle_kind(rng, dict(records)[e["name"]], "location")
        return what, build_zip(_set_record(records, "data.pkl", new))

    def version(rng, data, layout):
        value = rng.choice(VERSIONS)
        return f"version-{value!r}", build_zip(_set_record(layout.records(data), "/version", value))

    def alignment(rng, data, layout):
        e = layout.entry(".storage_alignment")
        choice = rng.randrange(4)
        if choice == 0:
            return "alignment-compressed", _patch_both(data, e, 10, 8, "<H", 8)
        if choice == 1:
            return "alignment-compressed-central", _patch_both(data, e, 10, None, "<H", 8)
        value = rng.choice([b"abc", b"0", b"1", b"", b"64\n", b"-64"])
        return f"alignment-{value!r}", build_zip(_set_record(layout.records(data), ".storage_alignment", value))

    def byteorder(rng, data, layout):
        value = rng.choice([None, b"big", b"bigx", b"", b"LITTLE", b"little\n"])
        return f"byteorder-{value!r}", build_zip(_set_record(layout.records(data), "/byteorder", value))

    def format_version(rng, data, layout):
        value = rng.choice([None, b"0", b"x", b"2"])
        return f"format_version-{value!r}", build_zip(_set_record(layout.records(data), ".format_version", value))

    def pickle_edit(rng, data, layout):
        records = layout.records(data)
        what, new = edit_pickle(rng, dict(records)[layout.entry("data.pkl")["name"]])
        return what, build_zip(_set_record(records, "data.pkl", new))

    def record_size(rng, data, layout):
        records = layout.records(data)
        storages = [n for n, _ in records if "/data/" in n]
        name = rng.choice(storages)
        payload = dict(records)[name]
        change = rng.choice([-1, 1, -4, 4, 64, -len(payload)])
        new = payload[:len(payload) + change] if change < 0 else payload + bytes(change)
        return f"size-{name}-{change}", build_zip(_set_record(records, name, new))

    def crc(rng, data, layout):
        e = rng.choice(layout.entries)
        value = rng.randrange(2 ** 32)
        both = rng.random() < 0.5
        return f"crc-{e['name']}", _patch_both(data, e, 16, 14 if both else None, "<I", value)

    def remove(rng, data, layout):
        records = layout.records(data)
        name = rng.choice([n for n, _ in records])
        return f"remove-{name}", build_zip([r for r in records if r[0] != name])

    def rename(rng, data, layout):
        records = layout.records(data)
        index = rng.randrange(len(records))
        name, payload = records[index]
        kind = rng.randrange(4)
        if kind == 0:
            new = name.upper()
        elif kind == 1:
            new = "other/" + name.split("/", 1)[1]
        elif kind == 2:
            new = name.split("/", 1)[1]
        else:
            new = name + "x"
        records[index] = (new, payload)
        return f"rename-{name}-to-{new}", build_zip(records)

    def method(rng, data, layout):
        e = rng.choice(layout.entries)
        value = rng.choice([8, 12, 14, 99, 1])
        return f"method-{e['name']}-{value}", _patch_both(data, e, 10, 8, "<H", value)

    def extra_field(rng, data, layout):
        # a central directory with one entry's extra field enlarged (a well-formed or a malformed record)
        e = rng.choice(layout.entries)
        extra = rng.choice([b"\x01\x00\x08\x00" + bytes(8), b"FB\x04\x00ZZZZ", b"\xff\xff\x10\x00", b"ab"])
        nlen, elen = struct.unpack_from("<HH", data, e["central"] + 28)
        insert_at = e["central"] + 46 + nlen + elen
        out = bytearray(data[:insert_at] + extra + data[insert_at:])
        struct.pack_into("<H", out, e["central"] + 30, elen + len(extra))
        eocd = layout.eocd + len(extra)
        struct.pack_into("<I", out, eocd + 12, layout.cd_size + len(extra))
        return f"extra-{e['name']}-{extra[:4].hex()}", bytes(out)

    def local_lengths(rng, data, layout):
        e = rng.choice(layout.entries)
        field = rng.choice([26, 28])
        value = (struct.unpack_from("<H", data, e["local"] + field)[0] + rng.choice([1, -1, 4, 64])) % 65536
        out = bytearray(data)
        struct.pack_into("<H", out, e["local"] + field, value)
        return f"local-len-{e['name']}-{field}", bytes(out)

    def central_numbers(rng, data, layout):
        e = rng.choice(layout.entries)
        field, fmt = rng.choice([(20, "<I"), (24, "<I"), (42, "<I"), (34, "<H"), (8, "<H")])
        old = struct.unpack_from(fmt, data, e["central"] + field)[0]
        new = rng.choice([old + 1, max(old - 1, 0), 0, 0xFFFF if fmt == "<H" else 0xFFFFFFFF, old + 64])
        return f"central-{field}-{e['name']}-{new}", _patch_both(data, e, field, None, fmt, new)

    def end_numbers(rng, data, layout):
        field, fmt = rng.choice([(4, "<H"), (6, "<H"), (8, "<H"), (10, "<H"), (12, "<I"), (16, "<I"), (20, "<H")])
        old = struct.unpack_from(fmt, data, layout.eocd + field)[0]
        new = rng.choice([old + 1, max(old - 1, 0), 0, 1, old + 46])
        out = bytearray(data)
        struct.pack_into(fmt, out, layout.eocd + field, new)
        return f"end-{field}-{new}", bytes(out)

    def serialization_id(rng, data, layout):
        records = layout.records(data)
        if rng.random() < 0.5:
            return "serialization_id-removed", build_zip(_set_record(records, "serialization_id", None))
        e = layout.entry("serialization_id")
        return "serialization_id-method", _patch_both(data, e, 10, 8, "<H", 8)

    def prepend(rng, data, layout):
        # bytes in front of the archive, still starting like a zip (Python's zipfile shifts every offset)
        junk = b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        return f"prepend-{len(junk)}", junk + data

    def zip64_records(rng, data, layout):
        # a zip64 end record and locator in front of the end record, with its numbers right or changed
        end = data[layout.eocd:]
        count, size, offset = struct.unpack_from("<HII", end, 10)
        fields = {"count": count, "size": size, "offset": offset, "disks": 1, "length": 44}
        changed = rng.choice([None, "count", "size", "offset", "disks", "length"])
        if changed:
            fields[changed] = rng.choice([0, 2, fields[changed] + 1, 2 ** 33])
        record = (b"PK\x06\x06" + struct.pack("<QHHII", fields["length"], 45, 45, 0, 0)
                  + struct.pack("<QQQQ", fields["count"], fields["count"], fields["size"], fields["offset"]))
        locator = b"PK\x06\x07" + struct.pack("<IQI", 0, layout.eocd, fields["disks"] % 2 ** 32)
        return f"zip64-{changed}", data[:layout.eocd] + record + locator + end

    return [flip_local, flip_central, flip_end_record, flip_anywhere, truncate, append, duplicate, location,
            version, alignment, byteorder, format_version, pickle_edit, record_size, crc, remove, rename, method,
            extra_field, local_lengths, central_numbers, end_numbers, serialization_id, pickle_edit, location,
            duplicate, prepend, zip64_records, pickle_edit]


def edit_pickle_kind(rng, data, kind):
    """An `edit_pickle` of one kind only (falls back to any kind when the pickle has no place for it)."""
    for attempt in range(50):
        what, new = edit_pickle(random.Random(rng.random()), data)
        if what.startswith(kind):
            return what, new
    return edit_pickle(rng, data)


def _mutants(ops, data, layout, seed, count):
    """`count` mutants of `data`, each from the next op in turn with its own seeded generator."""
    mutants = []
    for index in range(count):
        rng = random.Random(f"{seed}-{index}")
        what, mutated = ops[index % len(ops)](rng, data, layout)
        mutants.append((f"{index:03d}-{what}", mutated))
    return mutants


def zip_mutants(data, seed, count):
    return _mutants(_zip_ops(), data, ZipLayout(data), seed, count), data


# --- the pre-1.6 format -------------------------------------------------------------------------------------


class LegacyLayout:
    """Where the parts of a legacy file sit: the three header pickles, the object pickle, the key list, then per
    storage an 8-byte element count and the bytes (`itemsizes` gives each key's element size)."""

    def __init__(self, data, itemsizes):
        stream = io.BytesIO(data)
        for _ in range(3):
            pickle.load(stream)
        self.object_start = stream.tell()
        ops = pickle_ops(data[self.object_start:])
        self.object_end = self.object_start + ops[-1][3]
        stream.seek(self.object_end)
        self.keys = pickle.load(stream)
        self.keys_end = stream.tell()
        self.counts = []
        pos = self.keys_end
        for key in self.keys:
            (numel,) = struct.unpack_from("<q", data, pos)
            self.counts.append(pos)
            pos += 8 + numel * itemsizes[key]
        self.end = pos


def _legacy_ops():
    def flip_anywhere(rng, data, layout):
        pos = rng.randrange(len(data))
        return f"flip-{pos}", flip(rng, data, pos)

    def flip_headers(rng, data, layout):
        pos = rng.randrange(layout.object_start)
        return f"flip-header-{pos}", flip(rng, data, pos)

    def flip_keys(rng, data, layout):
        pos = rng.randrange(layout.object_end, layout.keys_end)
        return f"flip-keys-{pos}", flip(rng, data, pos)

    def flip_count(rng, data, layout):
        pos = rng.choice(layout.counts) + rng.randrange(8)
        return f"flip-count-{pos}", flip(rng, data, pos)

    def count(rng, data, layout):
        index = rng.randrange(len(layout.counts))
        pos = layout.counts[index]
        (numel,) = struct.unpack_from("<q", data, pos)
        new = rng.choice([numel + 1, numel - 1, numel + 256, numel << 8, 2 ** 40, -5, 0, numel + (1 << 32)])
        return f"count-{index}-{numel}to{new}", data[:pos] + struct.pack("<q", new) + data[pos + 8:]

    def truncate(rng, data, layout):
        cut = rng.choice([rng.randrange(len(data)), rng.randrange(layout.keys_end, len(data)),
                          len(data) - rng.randrange(1, 16)])
        return f"truncate-{cut}", data[:cut]

    def pickle_edit(rng, data, layout):
        what, new = edit_pickle(rng, data[layout.object_start:layout.object_end])
        return what, data[:layout.object_start] + new + data[layout.object_end:]

    def location(rng, data, layout):
        what, new = edit_pickle_kind(rng, data[layout.object_start:layout.object_end], "location")
        return what, data[:layout.object_start] + new + data[layout.object_end:]

    def numel(rng, data, layout):
        # the element count inside a storage's persistent id (the BININT after the location)
        body = data[layout.object_start:layout.object_end]
        ops = pickle_ops(body)
        places = [ops[i + 2] for i in range(len(ops) - 3) if ops[i][0] == "BINUNICODE" and ops[i][1] == "cpu"
                  and ops[i + 2][0].startswith("BININT")]
        places += [ops[i + 2] for i in range(len(ops) - 3) if ops[i][0] == "BINGET"
                   and ops[i + 2][0].startswith("BININT") and ops[i + 3][0] == "NONE"]
        if not places:
            return pickle_edit(rng, data, layout)
        _, value, start, end = rng.choice(places)
        new = rng.choice([value + 1, max(value - 1, 0), 0, value * 4, 2 ** 31 - 1])
        body = _replace(body, start, end, pickle.BININT + struct.pack("<i", new))
        return f"numel-{value}to{new}", data[:layout.object_start] + body + data[layout.object_end:]

    def keys(rng, data, layout):
        keys = list(layout.keys)
        kind = rng.randrange(4)
        if kind == 0 and len(keys) > 1:
            keys.pop(rng.randrange(len(keys)))
        elif kind == 1:
            keys.append(keys[rng.randrange(len(keys))])
        elif kind == 2:
            keys.reverse()
        else:
            keys.append("12345")
        new = pickle.dumps(keys, protocol=2)
        return f"keys-{kind}", data[:layout.object_end] + new + data[layout.keys_end:]

    def append(rng, data, layout):
        return "append", data + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 32)))

    def headers(rng, data, layout):
        kind = rng.randrange(4)
        values = [0x1950A86A20F9469CFC6C, 1001, {"protocol_version": 1001, "little_endian": True,
                                                 "type_sizes": {"short": 2, "int": 4, "long": 4}}]
        if kind == 0:
            values[0] += 1
        elif kind == 1:
            values[1] = rng.choice([1000, 1002])
        elif kind == 2:
            values[2]["little_endian"] = False
        else:
            values[2] = [1, 2]
        head = b"".join(pickle.dumps(v, protocol=2) for v in values)
        return f"headers-{kind}", head + data[layout.object_start:]

    return [flip_anywhere, flip_headers, flip_keys, flip_count, count, truncate, pickle_edit, location, numel,
            keys, append, headers, count, pickle_edit, numel, pickle_edit]


def renumbered_keys(data, itemsizes):
    """The legacy file with its storage keys (torch writes memory addresses, which differ from run to run)
    renamed "0", "1", ... in the order of its key list, and the element sizes by the new keys; so that the
    seeded mutants are the same on every run."""
    layout = LegacyLayout(data, itemsizes)
    names = {key: str(index) for index, key in enumerate(layout.keys)}
    body = data[layout.object_start:layout.object_end]
    for _, arg, start, end in reversed(pickle_ops(body)):
        if arg in names:
            body = _replace(body, start, end, _unicode(names[arg]))
    keys = pickle.dumps([names[key] for key in layout.keys], protocol=2)
    renamed = data[:layout.object_start] + body + keys + data[layout.keys_end:]
    return renamed, {names[key]: size for key, size in itemsizes.items() if key in names}


def legacy_mutants(data, itemsizes, seed, count):
    data, itemsizes = renumbered_keys(data, itemsizes)
    return _mutants(_legacy_ops(), data, LegacyLayout(data, itemsizes), seed, count), data
