/* libhum.so dlopen'ed with RTLD_LOCAL, as plugin hosts load it: its symbols are not global,
 * yet the runtime's Lua layer still reaches libhum's C functions (creating a runtime calls
 * hum_version through the FFI, and a reload runs every policy file again). Only hum.h's
 * functions are exported: an internal one such as hum_lua_call must not resolve. */
#define _POSIX_C_SOURCE 200809L
#include "hum/hum.h"
#include "rt_test.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef hum_status (*create_fn)(const hum_runtime_options *, hum_runtime **);
typedef void (*destroy_fn)(hum_runtime *);
typedef int32_t (*count_fn)(const hum_runtime *);
typedef const char *(*last_error_fn)(void);
typedef hum_status (*reload_fn)(hum_runtime *);

int main(void)
{
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    void *lib = dlopen(HUM_BINARY_DIR "/runtime/libhum.so", RTLD_NOW | RTLD_LOCAL);
    if (!RT_CHECK(lib != NULL, "dlopen: %s", dlerror()))
        return rt_test_result("test_runtime_dlopen");
    RT_CHECK(dlsym(RTLD_DEFAULT, "hum_runtime_policy_count") == NULL,
             "precondition: libhum's symbols are not in the global scope");
    create_fn create = (create_fn)dlsym(lib, "hum_runtime_create");
    destroy_fn destroy = (destroy_fn)dlsym(lib, "hum_runtime_destroy");
    count_fn count = (count_fn)dlsym(lib, "hum_runtime_policy_count");
    last_error_fn last_error = (last_error_fn)dlsym(lib, "hum_last_error");
    reload_fn reload = (reload_fn)dlsym(lib, "hum_runtime_reload_policies");
    RT_CHECK(dlsym(lib, "hum_lua_call") == NULL, "internal symbols stay hidden");
    if (!RT_CHECK(create && destroy && count && last_error && reload, "dlsym"))
        return rt_test_result("test_runtime_dlopen");
    hum_runtime *rt = NULL;
    hum_status st = create(NULL, &rt);
    if (RT_CHECK(st == HUM_OK, "create: %s", last_error())) {
        RT_CHECK(count(rt) == 5, "built-in policies: %d", count(rt));
        st = reload(rt);
        RT_CHECK(st == HUM_OK, "policy reload through the FFI: %s", last_error());
        RT_CHECK(count(rt) == 5, "policies after reload: %d", count(rt));
        destroy(rt);
    }
    dlclose(lib);
    return rt_test_result("test_runtime_dlopen");
}
