#include "CGnuTLS.h"

void cgnutls_free(void *pointer) { gnutls_free(pointer); }

unsigned int cgnutls_curve_to_bits(gnutls_ecc_curve_t curve) { return GNUTLS_CURVE_TO_BITS(curve); }
