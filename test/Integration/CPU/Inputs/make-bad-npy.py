"""Writes malformed and unsupported .npy files into the folder argv[1]."""
import os
import struct
import sys

out = sys.argv[1]


def npy(header, data=b""):
    h = header.encode() + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data


files = {
    "truncated.npy": npy("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (4,), }", b"\0" * 8),
    "badheader.npy": npy("{'dtype': '<f4', 'fortran_order': False, "
                         "'shape': (4,), }", b"\0" * 16),
    "int8.npy": npy("{'descr': '|i1', 'fortran_order': False, "
                    "'shape': (4,), }", b"\0" * 4),
    "object.npy": npy("{'descr': '|O', 'fortran_order': False, "
                      "'shape': (2,), }", b"\0" * 16),
    "bigendian.npy": npy("{'descr': '>f4', 'fortran_order': False, "
                         "'shape': (2,), }", b"\0" * 8),
    "huge.npy": npy("{'descr': '<f4', 'fortran_order': False, "
                    "'shape': (1099511627776, 4096), }"),
    "good.npy": npy("{'descr': '<f8', 'fortran_order': False, "
                    "'shape': (3,), }", struct.pack("<3d", 1, 2, 3)),
}
for name, data in files.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
