"""Makes a 32-bit `int 0x80` socket() syscall from shellcode: seccomp's arch check must kill it."""

import ctypes
import mmap

# mov eax, 359 (i386 socket); mov ebx, 2; mov ecx, 1; xor edx, edx; int 0x80; ret
CODE = b"\xb8\x67\x01\x00\x00\xbb\x02\x00\x00\x00\xb9\x01\x00\x00\x00\x31\xd2\xcd\x80\xc3"


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        mem = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        mem.write(CODE)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(mem))
        rc = ctypes.CFUNCTYPE(ctypes.c_int)(addr)()
        print("ESCAPED int80 socket" if rc >= 0 else "BLOCKED int80", rc)
        return obs["legal"][0]
