/* Files the CLI writes never destroy a user's file: `hum inspect --dequant` refuses a file of the
 * checkpoint it reads (even with --force), also where the checkpoint is named by its .safetensors
 * file, and any existing file without --force; `hum run --output` refuses the checkpoint and its
 * --input; `hum bench --out` an existing file; `hum demo --keep` a non-empty directory; nothing
 * replaces a symbolic link (dangling or not), device node or FIFO; a missing directory is said
 * before any work. Each refusal leaves the file byte for byte as it was. Output that cannot be
 * written (a full disk) fails the command, and a --dequant write that fails midway (past the
 * file-size limit) fails it with the reason, leaving no part of the file behind and a file it was
 * to replace as it was. */
#define _POSIX_C_SOURCE 200809L /* setenv, symlink, mkfifo */
#include "cli_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char LAYER[] = "model.layers.0.mlp.down_proj";

/* Runs `args`, expects exit code `rc` and `text` in the output, and `path` unchanged. */
static void refused(const char *what, const char *args, int rc, const char *text, const char *path)
{
    size_t before_size = 0, after_size = 0;
    char *before = cli_slurp(path, &before_size);
    RT_CHECK(before != NULL, "%s: %s unreadable before", what, path);
    RT_CHECK(cli_hum(args) == rc, "%s: exit %d expected:\n%s", what, rc, cli_output);
    cli_has(what, text);
    char *after = cli_slurp(path, &after_size);
    RT_CHECK(after && before && after_size == before_size && !memcmp(before, after, before_size),
             "%s: %s was changed", what, path);
    free(before);
    free(after);
}

/* The names in `dir`, one line each ("" for none), in a static buffer: what a write left there. */
static const char *listing(const char *dir)
{
    static char names[8192];
    size_t used = 0;
    names[0] = '\0';
    DIR *d = opendir(dir);
    for (const struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s\n", e->d_name);
    if (d)
        closedir(d);
    return names;
}

/* --dequant under a file-size limit of 64 KiB (the float32 weight is 64 KiB and more), inherited by
 * hum as a full disk would stop it midway: exit 1 naming OUT and why, OUT's directory as it was
 * (no temporary file), and with --force the file it was to replace unchanged. SIGXFSZ keeps its
 * default, as in a user's shell: hum was killed by it with the part on disk. */
static void dequant_fails_midway(const char *dir, const char *ckpt)
{
    char out_dir[4300], out[4400], args[16384];
    snprintf(out_dir, sizeof out_dir, "%s/small-disk", dir);
    RT_CHECK(mkdir(out_dir, 0755) == 0, "mkdir %s", out_dir);
    snprintf(out, sizeof out, "%s/weight.safetensors", out_dir);
    struct rlimit old, small;
    RT_CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
    small = old;
    small.rlim_cur = 64 << 10;
    for (int force = 0; force < 2; force++) {
        if (force)
            rt_write(out_dir, "weight.safetensors", "a user's file\n");
        char before[8192];
        snprintf(before, sizeof before, "%s", listing(out_dir));
        snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s%s", ckpt, LAYER, out, force ? " --force" : "");
        RT_CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit");
        const int rc = cli_hum(args);
        RT_CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0, "restoring the file-size limit");
        const char *what = force ? "--dequant --force past the file-size limit" : "--dequant past the file-size limit";
        RT_CHECK(rc == 1, "%s: exit %d (-1: killed by a signal), expected 1:\n%s", what, rc, cli_output);
        cli_has(what, out);
        cli_has(what, "File too large");
        RT_CHECK(!strcmp(listing(out_dir), before), "%s left in %s:\n%s(before:\n%s)", what, out_dir, listing(out_dir),
                 before);
    }
    size_t size = 0;
    char *kept = cli_slurp(out, &size);
    RT_CHECK(kept && size == 14 && !memcmp(kept, "a user's file\n", 14), "the file --force was to replace changed");
    free(kept);
}

int main(void)
{
    char dir[4096], ckpt[4200], model[4300], out[4300], args[16384];
    rt_tmpdir("cli-outputs", dir, sizeof dir);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("HUM_CACHE_DIR", cache, 1);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    snprintf(model, sizeof model, "%s/model.safetensors", ckpt);
    cli_write_checkpoint(ckpt, LAYER);

    /* the checkpoint's own weights: refused with and without --force, and the checkpoint still loads */
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s", ckpt, LAYER, model);
    refused("--dequant over the checkpoint", args, 1, "refusing to write", model);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s --force", ckpt, LAYER, model);
    refused("--dequant --force over the checkpoint", args, 1, "refusing to write", model);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s", model, LAYER, model);
    refused("--dequant over the .safetensors read", args, 1, "is read with the checkpoint", model);
    /* named by its .safetensors file, the checkpoint is still its directory: config.json, shards */
    char ck_config[4300];
    snprintf(ck_config, sizeof ck_config, "%s/config.json", ckpt);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s --force", model, LAYER, ck_config);
    refused("--dequant --force over the config.json beside the .safetensors read", args, 1,
            "is read with the checkpoint", ck_config);
    snprintf(args, sizeof args, "run %s --layer %s --input %s --output %s --force", model, LAYER, model, ck_config);
    refused("run --output --force over the config.json beside the .safetensors read", args, 1,
            "is read with the checkpoint", ck_config);
    /* a new file beside a checkpoint named by its file is no part of it: written */
    char beside[4400];
    snprintf(beside, sizeof beside, "%s/beside.safetensors", ckpt);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s", model, LAYER, beside);
    RT_CHECK(cli_hum(args) == 0, "--dequant beside a checkpoint named by its file:\n%s", cli_output);
    RT_CHECK(unlink(beside) == 0, "%s was not written", beside);
    /* a directory that is not there is said before the layer is loaded and dequantized */
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s/none/x.safetensors", ckpt, LAYER, dir);
    RT_CHECK(cli_hum(args) == 1, "--dequant into a missing directory:\n%s", cli_output);
    cli_has("--dequant into a missing directory", "its directory does not exist");
    RT_CHECK(!strstr(cli_output, "standard form"), "--dequant into a missing directory dequantized first:\n%s",
             cli_output);
    /* a new file in the checkpoint directory would become a shard of it */
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s/dequant.safetensors", ckpt, LAYER, ckpt);
    RT_CHECK(cli_hum(args) == 1, "--dequant into the checkpoint directory:\n%s", cli_output);
    cli_has("--dequant into the checkpoint directory", "is read with the checkpoint");
    snprintf(args, sizeof args, "inspect %s", ckpt);
    RT_CHECK(cli_hum(args) == 0, "the checkpoint still reads:\n%s", cli_output);
    cli_has("the checkpoint still reads", "1 quantized layer");

    /* an existing file elsewhere: refused without --force, replaced with it */
    const char *existing = rt_write(dir, "notes.safetensors", "a user's file\n");
    snprintf(out, sizeof out, "%s", existing);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s", ckpt, LAYER, out);
    refused("--dequant over an existing file", args, 1, "exists: refusing to replace it (--force replaces it)", out);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant=%s --force", ckpt, LAYER, out);
    RT_CHECK(cli_hum(args) == 0, "--dequant --force over an existing file:\n%s", cli_output);
    cli_has("--dequant --force", "wrote ");
    size_t size = 0;
    char *written = cli_slurp(out, &size);
    RT_CHECK(written && size > 64 * 256 * 4, "--force wrote the float32 weight (%zu bytes)", size);
    free(written);
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s --force", ckpt, LAYER, dir);
    RT_CHECK(cli_hum(args) == 1, "--dequant to a directory:\n%s", cli_output);
    cli_has("--dequant to a directory", "is a directory");
    /* an empty name was found out after the listing and the conversion ("hum inspect: : cannot write") */
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant=", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 1, "--dequant of an empty name:\n%s", cli_output);
    cli_has("--dequant of an empty name", "--dequant is empty (expected a file name)");
    RT_CHECK(!strstr(cli_output, "quantized layer"), "an empty --dequant printed the listing first:\n%s", cli_output);

    dequant_fails_midway(dir, ckpt);

    /* entries that are not regular files stay as they are, --force or not */
    char link[4300], dangling[4300], fifo[4300];
    snprintf(link, sizeof link, "%s/link.safetensors", dir);
    snprintf(dangling, sizeof dangling, "%s/dangling.safetensors", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.safetensors", dir);
    RT_CHECK(symlink(out, link) == 0 && symlink("nowhere", dangling) == 0 && mkfifo(fifo, 0644) == 0,
             "making the link, the dangling link and the FIFO");
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s --force", ckpt, LAYER, link);
    refused("--dequant --force over a symbolic link", args, 1, "is a symbolic link: refusing to replace it", out);
    struct stat st;
    RT_CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s", ckpt, LAYER, dangling);
    RT_CHECK(cli_hum(args) == 1, "--dequant over a dangling link:\n%s", cli_output);
    cli_has("--dequant over a dangling link", "is a symbolic link: refusing to replace it");
    RT_CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode), "the dangling link is still a link");
    snprintf(args, sizeof args, "inspect %s --layer %s --dequant %s --force", ckpt, LAYER, fifo);
    RT_CHECK(cli_hum(args) == 1, "--dequant --force over a FIFO:\n%s", cli_output);
    cli_has("--dequant --force over a FIFO", "is not a regular file: refusing to replace it");
    RT_CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    /* a device node: written through, a full one would fail midway; replaced, the device is gone */
    if (lstat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        snprintf(args, sizeof args, "inspect %s --layer %s --dequant=/dev/full --force", ckpt, LAYER);
        RT_CHECK(cli_hum(args) == 1, "--dequant --force over /dev/full:\n%s", cli_output);
        cli_has("--dequant --force over /dev/full", "--dequant /dev/full exists and is not a regular file");
        RT_CHECK(lstat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode), "/dev/full is still a device");
    }

    /* standard output that cannot take the text: exit 1, not a truncated file and exit 0 */
    RT_CHECK(cli_hum("--version >/dev/full") == 1, "--version into a full disk:\n%s", cli_output);
    snprintf(args, sizeof args, "inspect %s --json 2>/dev/null >/dev/full; echo exit $?", ckpt);
    RT_CHECK(cli_hum(args) == 0, "inspect --json into a full disk ran:\n%s", cli_output);
    cli_has("inspect --json into a full disk", "exit 1");

    /* hum run --output: never the checkpoint or the input, an existing file only with --force */
    const char *input = rt_write(dir, "input.safetensors", "activations\n");
    snprintf(args, sizeof args, "run %s --layer %s --input %s --output %s --force", ckpt, LAYER, input, input);
    refused("run --output over --input", args, 1, "is the input", input);
    snprintf(args, sizeof args, "run %s --layer %s --input %s --output %s", ckpt, LAYER, input, out);
    refused("run --output over an existing file", args, 1, "refusing to replace it", out);

    snprintf(args, sizeof args, "bench --layer n=64,k=256 --out %s", out);
    refused("bench --out over an existing file", args, 1, "refusing to replace it", out);

    /* demo --keep: a directory with files in it is refused before anything is written */
    snprintf(args, sizeof args, "demo --keep %s", ckpt);
    refused("demo --keep over a checkpoint", args, 1, "is not empty", model);
    const char *config = rt_write(ckpt, "config.json", "{\"user\": \"file\"}\n");
    refused("demo --keep keeps config.json", args, 1, "is not empty", config);

    rt_rmtree(dir);
    return rt_test_result("test_cli_outputs");
}
