#include "embed.h"

#include <string.h>

const hum_embedded_file *hum_embedded_find(const char *path)
{
    for (const hum_embedded_file *f = hum_embedded_files; f->path; f++)
        if (strcmp(f->path, path) == 0)
            return f;
    return NULL;
}
