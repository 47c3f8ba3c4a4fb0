#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""faults-inspect.py PID: how the program running as PID was executed.

For tests/bats/faults.bats, which runs it outside any seccomp filter while
PID (tests/helpers/fault-pause) sits in ppoll.  Deliberately independent
of the cloned_binary library: the kernel's view, as selfcheck.c has it.
Prints key=value lines:

  exe=TARGET       readlink /proc/PID/exe
  method=M         overlay (a read-only overlayfs mounted nowhere in PID's
                   mount namespace), memfd (seals 0xf or more), tmpfile
                   (unlinked, no write bits, x bits, on a filesystem where
                   the kernel enforces mode and links), or none
  seals=0xN mode=0NNN nlink=N fstype=0xN
  fds=0,1,2        PID's open fds
"""
import ctypes
import errno
import fcntl
import os
import re
import struct
import sys

F_GET_SEALS = 1024 + 10
OVERLAYFS_SUPER_MAGIC = 0x794C7630
# tmpfs, ext4, xfs, btrfs: the filesystems the file methods accept.
TRUSTED = {0x01021994, 0xEF53, 0x58465342, 0x9123683E}

libc = ctypes.CDLL(None, use_errno=True)


def fstype(fd):
    buf = ctypes.create_string_buffer(256)  # struct statfs: f_type first
    if libc.fstatfs(fd, buf) != 0:
        raise OSError(ctypes.get_errno(), "fstatfs")
    return struct.unpack_from("l", buf.raw)[0] & 0xFFFFFFFF


def mounted_ids(pid):
    with open(f"/proc/{pid}/mountinfo", encoding="utf-8") as f:
        return {int(line.split()[0]) for line in f}


def main():
    pid = sys.argv[1]
    exe = f"/proc/{pid}/exe"
    print("exe=" + os.readlink(exe))
    fd = os.open(exe, os.O_RDONLY | os.O_CLOEXEC)
    st = os.fstat(fd)
    try:
        seals = fcntl.fcntl(fd, F_GET_SEALS)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.EBADF):
            raise
        seals = 0
    ftype = fstype(fd)
    with open(f"/proc/self/fdinfo/{fd}", encoding="utf-8") as f:
        mnt_id = int(re.search(r"^mnt_id:\s*(\d+)", f.read(), re.M).group(1))
    rdonly = bool(os.fstatvfs(fd).f_flag & os.ST_RDONLY)
    mode = st.st_mode & 0o7777

    if (seals & 0xF) == 0xF:
        method = "memfd"
    elif ftype == OVERLAYFS_SUPER_MAGIC and rdonly and mnt_id not in mounted_ids(pid):
        method = "overlay"
    elif st.st_nlink == 0 and not mode & 0o222 and mode & 0o111 and ftype in TRUSTED:
        method = "tmpfile"
    else:
        method = "none"
    print(f"method={method}")
    print(f"seals=0x{seals:x} mode=0{mode:o} nlink={st.st_nlink} fstype=0x{ftype:x}")
    fds = sorted(int(n) for n in os.listdir(f"/proc/{pid}/fd"))
    print("fds=" + ",".join(map(str, fds)))


if __name__ == "__main__":
    main()
