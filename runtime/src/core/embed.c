#include "embed.h"

#include "hum/hum_tools.h"

#include <string.h>

const hum_embedded_file *hum_embedded_find(const char *path)
{
    for (const hum_embedded_file *f = hum_embedded_files; f->path; f++)
        if (strcmp(f->path, path) == 0)
            return f;
    return NULL;
}

const char *hum_cdef(void)
{
    const hum_embedded_file *f = hum_embedded_find("include/hum_cdef.h");
    return f ? f->data : "";
}
