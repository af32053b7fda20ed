/* hubfetch.h - a hub model's files fetched into the Hugging Face cache
 * (hubfetch.c), for `attnviz get` and --model NAME answered yes
 * (hub_cmd.c). Private to src/cli/hub/.
 */
#ifndef ATTNVIZ_HUBFETCH_H
#define ATTNVIZ_HUBFETCH_H

#include <stddef.h>

#include "io/hfcache.h"

#define HUB_DEFAULT_ENDPOINT "https://huggingface.co" /* without $HF_ENDPOINT */

/* Download the files attnviz reads of id (config.json, the tokenizer, the
 * weights) from $HF_ENDPOINT into the cache at root, with the token
 * hubget_token finds, then write refs/REV; snap (size) receives the
 * snapshot's folder. Returns 0, or the exit status of the failure, said in
 * one line. Reaches the network: not with HF_HUB_OFFLINE (the caller's). */
int hubfetch_model(const HfId *id, const char *root, char *snap, size_t size);

#endif
