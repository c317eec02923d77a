/* A deliberately broken Node-API addon: the self-test of test:native-safety.
 * The checker must find each of these bugs in it, attributed to this module,
 * or its verdict on the real addon means nothing. Never shipped, never loaded
 * by the library. */
#include <limits.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

static void* volatile sink;

/* 4242 bytes allocated and the only pointer dropped: a definite leak. */
static napi_value Leak(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  char* p = malloc(4242);
  memset(p, 1, 4242);
  sink = p;
  sink = NULL;
  return NULL;
}

/* One byte written past a 16-byte heap block. */
static napi_value Overflow(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  volatile int index = 16;
  char* p = malloc(16);
  sink = p;
  p[index] = 1;
  free((void*)sink);
  sink = NULL;
  return NULL;
}

/* A branch on heap memory nobody wrote (memcheck), and a signed overflow (UBSan). */
static napi_value Uninit(napi_env env, napi_callback_info info) {
  (void)info;
  int* p = malloc(4 * sizeof(int));
  volatile int big = INT_MAX;
  int wrapped = big + 1;
  int result = 0;
  if (p[2] > 7) {  /* a real branch: a call on one side only */
    napi_value ignored;
    napi_get_boolean(env, true, &ignored);
    result = 1;
  }
  free(p);
  napi_value out;
  napi_create_int32(env, result + (wrapped < 0), &out);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"leak", NULL, Leak, NULL, NULL, NULL, napi_enumerable, NULL},
      {"overflow", NULL, Overflow, NULL, NULL, NULL, napi_enumerable, NULL},
      {"uninit", NULL, Uninit, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
