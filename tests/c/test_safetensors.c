/* safetensors reader and writer: byte-exact output against the reference writer's own test
 * vector, round trips of every writable dtype, and every kind of lying or broken file rejected
 * with a message that names the problem. */
#include "formats_support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* A file made of the 8-byte length, `header` and `data_len` bytes of data. */
static const char *raw_file(const char *name, const char *header, uint64_t declared_len, size_t data_len)
{
    size_t hl = strlen(header);
    unsigned char *buf = calloc(1, 8 + hl + data_len + 1);
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)(declared_len >> (8 * i));
    memcpy(buf + 8, header, hl);
    for (size_t i = 0; i < data_len; i++)
        buf[8 + hl + i] = (unsigned char)(i * 7 + 1);
    const char *p = fmt_path(dir, name);
    fmt_write_bytes(p, buf, 8 + hl + data_len);
    free(buf);
    return p;
}

static const char *file_with(const char *name, const char *header, size_t data_len)
{
    return raw_file(name, header, strlen(header), data_len);
}

static void expect_rejected(const char *path, const char *what, const char *needle)
{
    hum_safetensors *st = (hum_safetensors *)0x1;
    hum_status s = hum_safetensors_open(path, &st);
    FMT_EXPECT_ERROR(s, HUM_ERR_FORMAT, what, needle, path);
    FMT_CHECK(st == NULL, "%s: out pointer not cleared", what);
}

/* The reference writer's test vector (safetensors/src/tensor.rs test_serialization): one F32
 * tensor "attn.0" of shape [1, 2, 3] holding 0..5. */
static void test_reference_vector(void)
{
    const char *json = "{\"attn.0\":{\"dtype\":\"F32\",\"shape\":[1,2,3],\"data_offsets\":[0,24]}}";
    float values[6] = {0, 1, 2, 3, 4, 5};
    hum_safetensors_tensor t = {.name = "attn.0", .dtype = HUM_DTYPE_FLOAT32, .rank = 3, .shape = {1, 2, 3},
                                .data = values};
    const char *p = fmt_path(dir, "ref.safetensors");
    FMT_CHECK(hum_safetensors_write(p, &t, 1, NULL) == HUM_OK, "%s", hum_last_error());
    size_t n = 0;
    unsigned char *got = fmt_read_bytes(p, &n);
    size_t jl = strlen(json);
    FMT_CHECK(jl == 64, "vector header is %zu bytes", jl);
    FMT_CHECK(got && n == 8 + jl + 24, "file is %zu bytes", n);
    if (got && n == 8 + jl + 24) {
        FMT_CHECK(got[0] == 64 && memcmp(got + 1, "\0\0\0\0\0\0\0", 7) == 0, "length field");
        FMT_CHECK(memcmp(got + 8, json, jl) == 0, "header: %.*s", (int)jl, got + 8);
        static const unsigned char data[24] = {0, 0, 0,  0,  0, 0, 128, 63, 0, 0, 0,   64,
                                               0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64};
        FMT_CHECK(memcmp(got + 8 + jl, data, 24) == 0, "data bytes");
    }
    free(got);
    /* The empty file with metadata {"framework": "pt"} (test_empty): 40-byte header, space padded. */
    const char *meta[] = {"framework", "pt", NULL};
    p = fmt_path(dir, "empty.safetensors");
    FMT_CHECK(hum_safetensors_write(p, NULL, 0, meta) == HUM_OK, "%s", hum_last_error());
    got = fmt_read_bytes(p, &n);
    const char *want = "{\"__metadata__\":{\"framework\":\"pt\"}}     ";
    FMT_CHECK(got && n == 48 && got[0] == 40 && memcmp(got + 8, want, 40) == 0, "empty file with metadata");
    free(got);
    hum_safetensors *st = NULL;
    FMT_CHECK(hum_safetensors_open(p, &st) == HUM_OK, "%s", hum_last_error());
    FMT_CHECK(hum_safetensors_count(st) == 0, "count");
    const char *v = hum_safetensors_metadata(st, "framework");
    FMT_CHECK(v && strcmp(v, "pt") == 0, "metadata value");
    FMT_CHECK(hum_safetensors_metadata(st, "absent") == NULL, "absent metadata key");
    hum_safetensors_close(st);
}

static void test_round_trip(void)
{
    uint16_t f16[6] = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x5640};
    int32_t words[5] = {0x77777777, -1, 0, 123456789, -2147483647 - 1};
    uint8_t bytes[3] = {0x7e, 0xff, 0x00};
    uint8_t fp4[4] = {0x10, 0x32, 0x54, 0x76}; /* 8 e2m1 codes */
    float scalar = 0.0234375f;
    const char *meta[] = {"format", "pt", "note", "quote \" and \\ survive", NULL};
    hum_safetensors_tensor in[] = {
        {.name = "model.layers.0.scales", .dtype = HUM_DTYPE_FLOAT16, .rank = 2, .shape = {2, 3}, .data = f16},
        {.name = "model.layers.0.qweight", .dtype = HUM_DTYPE_INT32, .rank = 1, .shape = {5}, .data = words},
        {.name = "w_fp8", .dtype = HUM_DTYPE_FLOAT8_E4M3FN, .rank = 3, .shape = {1, 3, 1}, .data = bytes},
        {.name = "packed", .dtype_name = "F4", .rank = 2, .shape = {2, 4}, .data = fp4},
        {.name = "weight_scale", .dtype = HUM_DTYPE_FLOAT32, .rank = 0, .data = &scalar},
        {.name = "empty", .dtype = HUM_DTYPE_BFLOAT16, .rank = 2, .shape = {0, 7}, .data = NULL},
    };
    const int n = sizeof in / sizeof in[0];
    const char *p = fmt_path(dir, "round.safetensors");
    FMT_CHECK(hum_safetensors_write(p, in, n, meta) == HUM_OK, "%s", hum_last_error());
    hum_safetensors *st = NULL;
    FMT_CHECK(hum_safetensors_open(p, &st) == HUM_OK, "%s", hum_last_error());
    if (!st)
        return;
    FMT_CHECK(hum_safetensors_count(st) == n, "count %lld", (long long)hum_safetensors_count(st));
    const char *note = hum_safetensors_metadata(st, "note");
    FMT_CHECK(note && strcmp(note, "quote \" and \\ survive") == 0, "escaped metadata");
    const char *prev = "";
    for (int i = 0; i < n; i++) {
        hum_safetensors_tensor t;
        FMT_CHECK(hum_safetensors_get(st, i, &t) == HUM_OK, "get %d", i);
        FMT_CHECK(strcmp(prev, t.name) < 0, "name order: %s after %s", t.name, prev);
        prev = t.name;
    }
    for (int i = 0; i < n; i++) {
        hum_safetensors_tensor t;
        FMT_CHECK(hum_safetensors_find(st, in[i].name, &t) == HUM_OK, "find %s", in[i].name);
        FMT_CHECK(hum_safetensors_has(st, in[i].name), "has %s", in[i].name);
        FMT_CHECK(t.rank == in[i].rank, "%s rank", in[i].name);
        int64_t numel = 1;
        for (int d = 0; d < t.rank; d++) {
            FMT_CHECK(t.shape[d] == in[i].shape[d], "%s shape[%d]", in[i].name, d);
            numel *= t.shape[d];
        }
        int32_t bits = 0;
        hum_dtype dt = 0;
        FMT_CHECK(hum_safetensors_dtype(t.dtype_name, &bits, &dt) == HUM_OK && dt == t.dtype, "%s dtype", in[i].name);
        FMT_CHECK(in[i].dtype == 0 || t.dtype == in[i].dtype, "%s hum dtype 0x%x", in[i].name, t.dtype);
        FMT_CHECK(t.nbytes == numel * bits / 8, "%s nbytes %lld", in[i].name, (long long)t.nbytes);
        FMT_CHECK(t.nbytes == 0 || memcmp(t.data, in[i].data, (size_t)t.nbytes) == 0, "%s data", in[i].name);
        /* The writer orders by element size, so with an 8-aligned mapping each tensor is aligned. */
        size_t elem = (size_t)(bits + 7) / 8;
        FMT_CHECK(((uintptr_t)t.data) % elem == 0, "%s alignment", in[i].name);
    }
    hum_safetensors_tensor t;
    FMT_EXPECT_ERROR(hum_safetensors_find(st, "nope", &t), HUM_ERR_FORMAT, "find missing", "nope", p);
    FMT_CHECK(!hum_safetensors_has(st, "nope"), "has missing");
    FMT_EXPECT_ERROR(hum_safetensors_get(st, n, &t), HUM_ERR_INVALID_ARG, "get out of range", "outside");
    hum_safetensors_close(st);
}

static void test_writer_errors(void)
{
    int32_t w[2] = {1, 2};
    const char *p = fmt_path(dir, "bad-write.safetensors");
    hum_safetensors_tensor dup[2] = {{.name = "a", .dtype = HUM_DTYPE_INT32, .rank = 1, .shape = {1}, .data = w},
                                     {.name = "a", .dtype = HUM_DTYPE_INT32, .rank = 1, .shape = {1}, .data = w + 1}};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, dup, 2, NULL), HUM_ERR_INVALID_ARG, "duplicate", "\"a\" given twice");
    hum_safetensors_tensor u4 = {.name = "q", .dtype = HUM_DTYPE_UINT4, .rank = 1, .shape = {8}, .data = w};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, &u4, 1, NULL), HUM_ERR_INVALID_ARG, "uint4", "no safetensors name");
    hum_safetensors_tensor nul = {.name = "q", .dtype = HUM_DTYPE_INT32, .rank = 1, .shape = {2}, .data = NULL};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, &nul, 1, NULL), HUM_ERR_INVALID_ARG, "NULL data", "NULL data");
    hum_safetensors_tensor f6 = {.name = "q", .dtype_name = "F6_E2M3", .rank = 1, .shape = {3}, .data = w};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, &f6, 1, NULL), HUM_ERR_INVALID_ARG, "F6 x3", "whole number of bytes");
    /* names a reader refuses were written: the header's metadata key, and bytes that are no UTF-8 */
    hum_safetensors_tensor meta = {.name = "__metadata__", .dtype = HUM_DTYPE_INT32, .rank = 1, .shape = {1}, .data = w};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, &meta, 1, NULL), HUM_ERR_INVALID_ARG, "__metadata__",
                     "the header's metadata key");
    hum_safetensors_tensor latin = {.name = "caf\xe9", .dtype = HUM_DTYPE_INT32, .rank = 1, .shape = {1}, .data = w};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, &latin, 1, NULL), HUM_ERR_INVALID_ARG, "latin-1 name",
                     "is not UTF-8 (byte 3)");
    const char *const latin_meta[] = {"format", "caf\xe9", NULL};
    FMT_EXPECT_ERROR(hum_safetensors_write(p, dup, 1, latin_meta), HUM_ERR_INVALID_ARG, "latin-1 metadata",
                     "metadata value", "is not UTF-8");
    /* the message leads with the caller's path, not the temporary file's */
    FMT_EXPECT_ERROR(hum_safetensors_write("/nonexistent-dir/x.safetensors", dup, 1, NULL), HUM_ERR_IO, "bad dir",
                     "/nonexistent-dir/x.safetensors: cannot create");
    FILE *f = fopen(p, "rb");
    FMT_CHECK(f == NULL, "a failed write left %s behind", p);
    if (f)
        fclose(f);
}

static void test_rejections(void)
{
    unsigned char tiny[5] = {1, 2, 3, 4, 5};
    const char *p = fmt_path(dir, "tiny.safetensors");
    fmt_write_bytes(p, tiny, sizeof tiny);
    expect_rejected(p, "5-byte file", "too short");

    const char *good = "{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}";
    expect_rejected(raw_file("long.safetensors", good, 1000, 8), "header length past EOF", "larger than the file");
    expect_rejected(raw_file("huge.safetensors", good, 200000000ull, 8), "header length cap", "exceeds the limit");
    expect_rejected(raw_file("wrap.safetensors", good, UINT64_MAX - 3, 8), "header length wraps", "exceeds the limit");
    /* Truncation: a valid file cut inside the data. */
    expect_rejected(file_with("trunc.safetensors", good, 5), "truncated data", "past the end");
    expect_rejected(file_with("nobrace.safetensors", " {\"a\":1}", 0), "leading space", "does not start with '{'");
    expect_rejected(
        file_with("json.safetensors", "{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}", 8),
        "unterminated JSON", "not valid JSON");
    expect_rejected(file_with("garbage.safetensors", "{}xyz   ", 0), "bytes after JSON", "bytes after its JSON");
    expect_rejected(file_with("array.safetensors", "[1, 2]", 0), "array header", "does not start");
    expect_rejected(
        file_with("utf8.safetensors", "{\"a\xff\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0),
        "invalid UTF-8", "not valid UTF-8 (header byte 3)");
    expect_rejected(file_with("overlong.safetensors", "{\"\xc0\xaf\":{}}", 0), "overlong UTF-8", "not valid UTF-8");
    /* JSON nested past cJSON's limit is named as such, not as invalid JSON */
    {
        char deep[2100] = "{\"a\":";
        size_t at = strlen(deep);
        for (int i = 0; i < 1010; i++)
            deep[at++] = '[';
        for (int i = 0; i < 1010; i++)
            deep[at++] = ']';
        deep[at++] = '}';
        deep[at] = '\0';
        expect_rejected(file_with("deep.safetensors", deep, 0), "nested too deep",
                        "nests lists and objects more than 1000 deep");
        /* 1000 levels are cJSON's own; a syntax error inside them is invalid JSON */
        at = strlen("{\"a\":");
        for (int i = 0; i < 999; i++)
            deep[at++] = '[';
        deep[at++] = '1';
        deep[at++] = ',';
        for (int i = 0; i < 999; i++)
            deep[at++] = ']';
        deep[at++] = '}';
        deep[at] = '\0';
        expect_rejected(file_with("deep-syntax.safetensors", deep, 0), "syntax error 1000 deep", "not valid JSON");
    }
    /* a NUL escape would cut a name short in C ("a\u0000b" read as "a"); an escaped backslash
     * before "u0000" is no NUL */
    expect_rejected(
        file_with("nul.safetensors", "{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0),
        "NUL in a name", "NUL character (\\u0000 at header byte 3)");
    {
        hum_safetensors *st = NULL;
        const char *q = file_with("backslash.safetensors",
                                  "{\"a\\\\u0000b\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0);
        FMT_CHECK(hum_safetensors_open(q, &st) == HUM_OK && hum_safetensors_has(st, "a\\u0000b"),
                  "an escaped backslash before u0000: %s", hum_last_error());
        hum_safetensors_close(st);
    }
    expect_rejected(file_with("mismatch.safetensors",
                              "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,8]}}", 8),
                    "shape x dtype mismatch", "\"a\": data_offsets [0, 8) hold 8 bytes but 4 elements of F32 need 16");
    expect_rejected(file_with("past.safetensors",
                              "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[8,12]}}", 8),
                    "offsets past the end", "\"a\": data_offsets end 12 is past the end of the data section (8 bytes)");
    expect_rejected(file_with("overlap.safetensors",
                              "{\"a\":{\"dtype\":\"U8\",\"shape\":[6],\"data_offsets\":[0,6]},"
                              "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,8]}}",
                              8),
                    "overlapping tensors", "\"b\" (bytes 4..8) overlaps tensor \"a\"");
    expect_rejected(file_with("hole.safetensors",
                              "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                              "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,8]}}",
                              8),
                    "hole", "2 unindexed bytes before tensor \"b\"");
    expect_rejected(file_with("trailing.safetensors", good, 12), "trailing bytes", "4 trailing bytes");
    expect_rejected(file_with("overflow.safetensors",
                              "{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}",
                              8),
                    "overflowing shape", "\"a\": shape overflows");
    expect_rejected(file_with("overflow2.safetensors",
                              "{\"a\":{\"dtype\":\"U8\",\"shape\":[1e300],\"data_offsets\":[0,8]}}", 8),
                    "huge dimension", "shape[0] is not a non-negative integer");
    expect_rejected(file_with("neg.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[-8],\"data_offsets\":[0,8]}}", 8),
                    "negative dimension", "shape[0] is not a non-negative integer");
    expect_rejected(
        file_with("dtype.safetensors", "{\"a\":{\"dtype\":\"Q4\",\"shape\":[8],\"data_offsets\":[0,8]}}", 8),
        "unknown dtype", "\"a\": unknown safetensors dtype \"Q4\"");
    expect_rejected(file_with("dup.safetensors",
                              "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                              "\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,8]}}",
                              8),
                    "duplicate name", "\"a\" appears twice");
    expect_rejected(file_with("meta.safetensors", "{\"__metadata__\":{\"format\":1}}", 0), "metadata value",
                    "__metadata__ value of \"format\" is not a string");
    expect_rejected(file_with("meta2.safetensors", "{\"__metadata__\":[\"pt\"]}", 0), "metadata array",
                    "__metadata__ is not a JSON object");
    expect_rejected(
        file_with("f4odd.safetensors", "{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2),
        "odd F4 count", "not a whole number of bytes");
    expect_rejected(file_with("offs.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4]}}", 4),
                    "one offset", "\"data_offsets\" is not [begin, end]");
    expect_rejected(file_with("rev.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[4,0]}}", 4),
                    "reversed offsets", "end 0 is before begin 4");
    expect_rejected(file_with("noshape.safetensors", "{\"a\":{\"dtype\":\"U8\",\"data_offsets\":[0,4]}}", 4),
                    "missing shape", "missing array \"shape\"");
    expect_rejected(file_with("rank.safetensors",
                              "{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1),
                    "rank 9", "rank 9 exceeds");

    /* Padding with spaces and zero-size tensors sharing an offset are legal. */
    hum_safetensors *st = NULL;
    const char *ok = file_with("ok.safetensors",
                               "{\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]},"
                               "\"a\":{\"dtype\":\"F6_E3M2\",\"shape\":[4],\"data_offsets\":[0,3]},"
                               "\"s\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[3,11]}}      ",
                               11);
    FMT_CHECK(hum_safetensors_open(ok, &st) == HUM_OK, "legal file rejected: %s", hum_last_error());
    hum_safetensors_tensor t;
    FMT_CHECK(st && hum_safetensors_find(st, "s", &t) == HUM_OK && t.rank == 0 && t.nbytes == 8 &&
                  t.dtype == HUM_DTYPE_INT64,
              "scalar I64");
    FMT_CHECK(st && hum_safetensors_find(st, "a", &t) == HUM_OK && t.dtype == HUM_DTYPE_FLOAT6_E3M2, "F6_E3M2");
    hum_safetensors_close(st);

    FMT_EXPECT_ERROR(hum_safetensors_open(fmt_path(dir, "missing.safetensors"), &st), HUM_ERR_IO, "missing file",
                     "missing.safetensors");
}

/* Every single-byte corruption of a valid file's header is either accepted or rejected with
 * HUM_ERR_FORMAT: never a crash (the suite also runs under ASan/UBSan). */
static void test_corruption_sweep(void)
{
    const char *header = "{\"w\":{\"dtype\":\"I32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                         "\"s\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[24,30]}}  ";
    size_t hl = strlen(header), total = 8 + hl + 30;
    unsigned char *base = calloc(1, total);
    for (int i = 0; i < 8; i++)
        base[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(base + 8, header, hl);
    const unsigned char repl[] = {0, '"', '{', '}', '[', ']', ',', ':', '9', '-', 'e', 0xff, ' '};
    const char *p = fmt_path(dir, "sweep.safetensors");
    int accepted = 0, rejected = 0;
    for (size_t pos = 0; pos < 8 + hl; pos++)
        for (size_t r = 0; r < sizeof repl; r++) {
            unsigned char *b = malloc(total);
            memcpy(b, base, total);
            if (b[pos] == repl[r]) {
                free(b);
                continue;
            }
            b[pos] = repl[r];
            fmt_write_bytes(p, b, total);
            free(b);
            hum_safetensors *st = NULL;
            hum_status s = hum_safetensors_open(p, &st);
            if (s == HUM_OK) {
                accepted++;
                for (int64_t i = 0; i < hum_safetensors_count(st); i++) {
                    hum_safetensors_tensor t;
                    hum_safetensors_get(st, i, &t);
                    FMT_CHECK((const unsigned char *)t.data + t.nbytes <= (const unsigned char *)t.data + 30,
                              "view past the data");
                }
                hum_safetensors_close(st);
            } else {
                rejected++;
                FMT_CHECK(s == HUM_ERR_FORMAT, "byte %zu -> 0x%02x: %s: %s", pos, repl[r], hum_status_name(s),
                          hum_last_error());
                FMT_CHECK(strstr(hum_last_error(), p) != NULL, "message does not name the file: %s", hum_last_error());
            }
        }
    /* Each length cut of the file is rejected too. */
    for (size_t cut = 0; cut < total; cut++) {
        fmt_write_bytes(p, base, cut);
        hum_safetensors *st = NULL;
        hum_status s = hum_safetensors_open(p, &st);
        FMT_CHECK(s == HUM_ERR_FORMAT, "file cut at %zu: %s", cut, hum_status_name(s));
        hum_safetensors_close(st);
    }
    FMT_CHECK(rejected > accepted, "sweep: %d accepted, %d rejected", accepted, rejected);
    free(base);
}

int main(void)
{
    dir = fmt_tmpdir("safetensors");
    test_reference_vector();
    test_round_trip();
    test_writer_errors();
    test_rejections();
    test_corruption_sweep();
    fmt_rmtree(dir);
    free(dir);
    return fmt_finish("test_safetensors");
}
