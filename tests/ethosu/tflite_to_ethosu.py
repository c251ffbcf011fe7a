#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Repackages a Vela-compiled .tflite (one `ethos-u` custom operator) as the vela_bin_stream
that ExecuTorch's Ethos-U backend and `openvgf run` read, so that third-party Vela streams can
be run by the simulator. Facts used: the TFLite schema's field numbers (Model: 1 operator_codes,
2 subgraphs, 4 buffers, 6 metadata; SubGraph: 0 tensors, 1 inputs, 2 outputs, 3 operators;
Tensor: 0 shape, 1 type, 2 buffer; Operator: 1 inputs, 2 outputs; Buffer: 0 data; Metadata:
0 name, 1 buffer), Vela's custom-operator inputs (command stream, read-only data, scratch,
fast scratch, then the feature maps) and its OfflineMemoryAllocation metadata (version,
subgraph, tensor count, then each tensor's byte offset in the arena, -1 for none): the
network's feature maps live in the scratch arena (region 1) at those offsets.

usage: tflite_to_ethosu.py MODEL.tflite OUT.ethosu
"""
import struct
import sys


class Table:
    def __init__(self, data, pos):
        self.data, self.pos = data, pos
        self.vtable = pos - struct.unpack_from("<i", data, pos)[0]
        self.vsize = struct.unpack_from("<H", data, self.vtable)[0]

    def field(self, i):
        at = 4 + 2 * i
        return struct.unpack_from("<H", self.data, self.vtable + at)[0] if at < self.vsize else 0

    def scalar(self, i, fmt, default=0):
        off = self.field(i)
        return struct.unpack_from(fmt, self.data, self.pos + off)[0] if off else default

    def vector(self, i):
        off = self.field(i)
        if not off:
            return 0, 0
        at = self.pos + off
        at += struct.unpack_from("<I", self.data, at)[0]
        return at + 4, struct.unpack_from("<I", self.data, at)[0]

    def tables(self, i):
        at, n = self.vector(i)
        return [Table(self.data, at + 4 * k + struct.unpack_from("<I", self.data, at + 4 * k)[0]) for k in range(n)]

    def ints(self, i):
        at, n = self.vector(i)
        return list(struct.unpack_from("<%di" % n, self.data, at)) if n else []

    def raw(self, i):
        at, n = self.vector(i)
        return self.data[at:at + n]


def block(name, payload):
    header = name.encode().ljust(16, b"\0") + struct.pack("<I", len(payload)) + b"\0" * 12
    return header + payload + b"\0" * (-len(payload) % 16)


def io_list(records):
    out = struct.pack("<i", len(records))
    for shape, elem, offset in records:
        dims = ([1] * 6 + list(shape))[-6:]
        out += struct.pack("<6i3i", *dims, elem, offset, 1)
    return out


def main(tflite, out_path):
    data = open(tflite, "rb").read()
    model = Table(data, struct.unpack_from("<I", data, 0)[0])
    buffers = [b.raw(0) for b in model.tables(4)]
    subgraph = model.tables(2)[0]
    tensors = subgraph.tables(0)
    ops = subgraph.tables(3)
    if len(ops) != 1:
        sys.exit("%s: expected one ethos-u operator, got %d operators" % (tflite, len(ops)))
    offsets = None
    for meta in model.tables(6):
        name = bytes(meta.raw(0)).decode()
        if name == "OfflineMemoryAllocation":
            words = buffers[meta.scalar(1, "<I")]
            offsets = struct.unpack("<%di" % (len(words) // 4), words)[3:]
    if offsets is None:
        sys.exit("%s: expected OfflineMemoryAllocation metadata" % tflite)
    inputs, outputs = ops[0].ints(1), ops[0].ints(2)
    command = buffers[tensors[inputs[0]].scalar(2, "<I")]
    weights = buffers[tensors[inputs[1]].scalar(2, "<I")]
    scratch = tensors[inputs[2]].ints(0)
    scratch_size = 1
    for d in scratch:
        scratch_size *= d
    # TFLite tensor types: 9 INT8, 7 INT16, 2 INT32, 3 UINT8.
    elem = {9: 1, 3: 1, 7: 2, 2: 4}

    def feature_maps(indices):
        return [(tensors[t].ints(0), elem[tensors[t].scalar(1, "<b")], offsets[t]) for t in indices]

    stream = (block("vela_bin_stream", b"") + block("cmd_data", bytes(command)) + block("weight_data", bytes(weights)) +
              block("scratch_size", struct.pack("<I", scratch_size)) +
              block("inputs", io_list(feature_maps(inputs[4:]))) + block("outputs", io_list(feature_maps(outputs))) +
              block("vela_end_stream", b""))
    open(out_path, "wb").write(stream)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
