#ifndef CGNUTLS_H
#define CGNUTLS_H

// The whole C surface of GnuTLS: the engine's TLS (through CQuic, which includes this header)
// and the digests (Digest). Nothing else includes GnuTLS's headers.
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/crypto.h>

// gnutls_free is a macro over a global function pointer, which Swift 6 sees as shared mutable state.
void cgnutls_free(void *pointer);

// GNUTLS_CURVE_TO_BITS is a function-like macro: the `bits` argument that asks
// gnutls_x509_privkey_generate for a key on `curve`.
unsigned int cgnutls_curve_to_bits(gnutls_ecc_curve_t curve);

#endif
