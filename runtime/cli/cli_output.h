/* The files a command writes for the user (--dequant, --output, --out, demo --keep): never one of
 * the command's inputs, and never an existing file unless the user says --force. */
#ifndef HUM_CLI_OUTPUT_H
#define HUM_CLI_OUTPUT_H

/* 0 when `path` may be written; else reports on stderr ("<command>: <option> PATH ...") and
 * returns 1. `checkpoint` (may be NULL) is the checkpoint the command reads, a directory or one
 * .safetensors file: `path` may not be a file opening it reads (hum_checkpoint_reads: the file,
 * the config files beside it, any file of a directory), even with `force`. `inputs`
 * (NULL-terminated, may be NULL) are other files or directories it reads: `path` may not be one
 * of them nor, for a directory, a file directly in it. An existing `path` is refused unless it is a regular file
 * and `force` is given (a device node, FIFO or symbolic link, dangling or not, is never
 * replaced). Checked before the command does its work, so a refusal costs nothing and leaves
 * nothing behind. */
int cli_output_allowed(const char *command, const char *option, const char *path, int force, const char *checkpoint,
                       const char *const *inputs);

/* 0 when `dir` is missing or an empty directory (the demo writes a whole checkpoint into it);
 * else reports why not and returns 1. */
int cli_output_dir_empty(const char *command, const char *option, const char *dir);

#endif
