/* sha256_x86.c - a SHA-256 block by x86-64's SHA extensions
 * (sha256_x86.h), the same digest as core/hash/sha256.c's plain C to the
 * bit (test_sha256 runs both).
 */
#include "sha256_x86.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

bool sha256_x86_available(void)
{
    unsigned a, b, c, d; /* cpuid leaf 7: EBX bit 29 is SHA */
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 29 & 1);
}

/* sha256rnds2 makes two rounds from the state held as ABEF and CDGH (A in
 * the top word), sha256msg1 and sha256msg2 the schedule four words at a
 * time. */
SHA_TARGET void sha256_x86_block(uint32_t h[8], const uint8_t *p, const uint32_t K[64])
{
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)h), hgfe;
    hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1B);
    dcba = _mm_shuffle_epi32(dcba, 0xB1);             /* b a d c */
    __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);    /* f e b a */
    __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0); /* h g d c */
    const __m128i abef0 = abef, cdgh0 = cdgh;
    __m128i w[4];
    for (int q = 0; q < 16; q++) { /* rounds 4q .. 4q + 3 */
        if (q < 4)
            w[q] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * q)), swap);
        else {
            __m128i t = _mm_sha256msg1_epu32(w[q % 4], w[(q + 1) % 4]);
            t = _mm_add_epi32(t, _mm_alignr_epi8(w[(q + 3) % 4], w[(q + 2) % 4], 4));
            w[q % 4] = _mm_sha256msg2_epu32(t, w[(q + 3) % 4]);
        }
        __m128i m = _mm_add_epi32(w[q % 4], _mm_loadu_si128((const __m128i *)(K + 4 * q)));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B); /* a b e f */
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1); /* g h c d */
    _mm_storeu_si128((__m128i *)h, _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#else
bool sha256_x86_available(void)
{
    return false;
}

void sha256_x86_block(uint32_t h[8], const uint8_t *p, const uint32_t K[64])
{
    (void)h, (void)p, (void)K;
}
#endif
