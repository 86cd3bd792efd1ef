/* cli_output.h: the rules for files the CLI writes, in one place for every command. */
#define _POSIX_C_SOURCE 200809L
#include "cli_output.h"

#include "hum/hum_tools.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The directory `path` would be created in: "." without a slash. */
static int parent_stat(const char *path, struct stat *out)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        return stat(".", out);
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof dir)
        return -1;
    memcpy(dir, path, len);
    dir[len] = '\0';
    return stat(dir, out);
}

int cli_output_allowed(const char *command, const char *option, const char *path, int force, const char *checkpoint,
                       const char *const *inputs)
{
    if (!*path) {
        fprintf(stderr, "%s: %s is empty (expected a file name)\n", command, option);
        return 1;
    }
    struct stat out, entry, parent;
    /* lstat: a symbolic link is an entry of its own, replaced by the write's rename, not its target */
    const int present = lstat(path, &entry) == 0, exists = stat(path, &out) == 0;
    const int have_parent = parent_stat(path, &parent) == 0;
    if (checkpoint && hum_checkpoint_reads(checkpoint, path)) {
        fprintf(stderr, "%s: %s %s is read with the checkpoint %s (its file, a config file beside it, or a file in "
                        "its directory): refusing to write there\n", command, option, path, checkpoint);
        return 1;
    }
    for (; inputs && *inputs; inputs++) {
        struct stat in;
        if (stat(*inputs, &in) != 0)
            continue; /* the command reports a missing input itself */
        if (exists && same_file(&out, &in)) {
            fprintf(stderr, "%s: %s %s is the input %s: refusing to write over it\n", command, option, path, *inputs);
            return 1;
        }
        /* A file added to a checkpoint directory changes the checkpoint (a new shard). */
        if (S_ISDIR(in.st_mode) && have_parent && same_file(&parent, &in)) {
            fprintf(stderr, "%s: %s %s is in %s, which this command reads: refusing to write there\n", command,
                    option, path, *inputs);
            return 1;
        }
    }
    /* the write's temporary file and rename happen in the parent: said now, not after the work */
    if (!have_parent || !S_ISDIR(parent.st_mode)) {
        fprintf(stderr, "%s: %s %s: its directory %s (expected an existing directory)\n", command, option, path,
                have_parent ? "is not a directory" : "does not exist");
        return 1;
    }
    if (exists && S_ISDIR(out.st_mode)) {
        fprintf(stderr, "%s: %s %s is a directory (expected a file name)\n", command, option, path);
        return 1;
    }
    if (present && !S_ISREG(entry.st_mode)) {
        fprintf(stderr, "%s: %s %s exists and is %s: refusing to replace it (name a new file or a regular one)\n",
                command, option, path, S_ISLNK(entry.st_mode) ? "a symbolic link" : "not a regular file");
        return 1;
    }
    if (present && !force) {
        fprintf(stderr, "%s: %s %s exists: refusing to replace it (--force replaces it)\n", command, option, path);
        return 1;
    }
    return 0;
}

int cli_output_dir_empty(const char *command, const char *option, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        fprintf(stderr, "%s: %s %s: %s\n", command, option, dir, strerror(errno));
        return 1;
    }
    const struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)) != NULL)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    if (!empty)
        fprintf(stderr, "%s: %s %s is not empty: refusing to write a checkpoint over its files (name a new or "
                        "empty directory)\n",
                command, option, dir);
    return !empty;
}
