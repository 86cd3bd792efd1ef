#define _GNU_SOURCE
#include "jit_support.h"

#include <dirent.h>
#include <elf.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *jt_make_temp_dir(const char *tag)
{
    char *path = malloc(256);
    JT_CHECK(path != NULL, "out of memory");
    snprintf(path, 256, "/tmp/hum-test-%s-XXXXXX", tag);
    JT_CHECK(mkdtemp(path) != NULL, "mkdtemp %s failed", path);
    return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

void jt_remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void jt_write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    JT_CHECK(f != NULL, "cannot create %s", path);
    JT_CHECK(fwrite(text, 1, strlen(text), f) == strlen(text), "cannot write %s", path);
    fclose(f);
}

char *jt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    JT_CHECK(buf != NULL, "out of memory");
    JT_CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
    fclose(f);
    buf[n] = '\0';
    if (size)
        *size = (size_t)n;
    return buf;
}

void jt_replace_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    JT_CHECK(f != NULL, "cannot open %s", path);
    JT_CHECK(fwrite(data, 1, size, f) == size, "cannot write %s", path);
    fclose(f);
}

int jt_count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    size_t ls = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && len >= ls && strcmp(e->d_name + len - ls, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

double jt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int jt_cubin_is_for(const void *cubin, size_t size, int sm)
{
    Elf64_Ehdr h;
    if (!cubin || size < sizeof h)
        return 0;
    memcpy(&h, cubin, sizeof h);
    if (memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_machine != EM_CUDA)
        return 0;
    /* The SM number sits in bits 8..15 of e_flags in the CUDA 12.8+ ELF ABI (ABI version 8),
     * in bits 0..7 before it. */
    unsigned flags = h.e_flags;
    return h.e_ident[EI_ABIVERSION] >= 8 ? (int)((flags >> 8) & 0xff) == sm : (int)(flags & 0xff) == sm;
}
