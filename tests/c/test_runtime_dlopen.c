/* libhum.so dlopen'ed with RTLD_LOCAL, as plugin hosts load it: its symbols are not global,
 * yet the runtime's Lua layer still reaches libhum's C functions (creating a runtime calls
 * hum_version through the FFI; the policy query below calls hum_runtime_device). */
#define _POSIX_C_SOURCE 200809L
#include "hum/hum.h"
#include "rt_test.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef hum_status (*create_fn)(const hum_runtime_options *, hum_runtime **);
typedef void (*destroy_fn)(hum_runtime *);
typedef int32_t (*count_fn)(const hum_runtime *);
typedef const char *(*last_error_fn)(void);
typedef hum_status (*lua_call_fn)(hum_runtime *, const char *, const char *, const char *, void *);

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
    lua_call_fn lua_call = (lua_call_fn)dlsym(lib, "hum_lua_call");
    if (!RT_CHECK(create && destroy && count && last_error && lua_call, "dlsym"))
        return rt_test_result("test_runtime_dlopen");
    hum_runtime *rt = NULL;
    hum_status st = create(NULL, &rt);
    if (RT_CHECK(st == HUM_OK, "create: %s", last_error())) {
        RT_CHECK(count(rt) == 5, "built-in policies: %d", count(rt));
        st = lua_call(rt, "hum.policy", "runtime_winner", NULL, NULL);
        RT_CHECK(st == HUM_OK, "a Lua function calling libhum through the FFI: %s", last_error());
        destroy(rt);
    }
    dlclose(lib);
    return rt_test_result("test_runtime_dlopen");
}
