#ifndef QCHAT_CARGON2_SHIM_H
#define QCHAT_CARGON2_SHIM_H

// Argon2 (RFC 9106), the reference implementation Debian ships as libargon2: qchat hashes
// passwords with argon2id. Nothing needs a shim: the functions used are plain C.
#include <argon2.h>

#endif
