// Package catalog knows the models rein can talk to and how to reach
// them: a built-in catalog of current Anthropic, OpenAI and Gemini models
// (context window, output limit, prices, reasoning, image input, wire
// protocol), the providers that serve them, where their API keys come
// from, and the JSON config file that adds providers, models, key
// profiles and fallback chains. It turns a model reference such as
// "sonnet" or "openai/gpt-6.2-sol" into an llm.Model and a ready
// llm.Provider.
//
// # Model references
//
// Catalog.Resolve accepts an alias ("opus", "sonnet", "haiku", "fable",
// "gpt", "sol", "luna", "astra", "flash", "gemini-pro" and config
// aliases), a provider alone for its default model ("gemini"),
// "provider/model", or a bare model id from the catalog. A model missing
// from the catalog gets conservative defaults (128K window, 8K output, no
// price) and a Note saying how to declare it.
//
// # Config files
//
// Two JSON files are read and merged, the project's over the user's,
// field by field: the user file $XDG_CONFIG_HOME/rein/config.json (or
// ~/.config/rein/config.json) and the project file
// <workspace>/.rein/config.json. Unknown fields are reported as warnings
// with their position and a suggestion; malformed JSON, wrong types and
// invalid settings are errors naming the file, line and column.
//
// A complete example:
//
//	{
//	  "model": "anthropic/claude-sonnet-5-5",
//	  "fallbacks": ["openai/gpt-6.2-sol", "gemini/gemini-3.8-flash"],
//	  "aliases": {"local": "llamacpp/qwen3-coder"},
//	  "providers": {
//	    "anthropic": {
//	      "profiles": [
//	        {"name": "work", "api_key_env": "ANTHROPIC_WORK_KEY"},
//	        {"name": "personal", "api_key_command": "pass show anthropic/personal", "api_key_ttl": "1h"}
//	      ]
//	    },
//	    "openai": {"api_key_env": "MY_OPENAI_KEY"},
//	    "llamacpp": {
//	      "api": "openai-chat",
//	      "base_url": "http://127.0.0.1:8080/v1",
//	      "no_key": true,
//	      "compat": {"max_tokens_field": "max_tokens", "reasoning_field": "reasoning_content"},
//	      "default_model": "qwen3-coder"
//	    },
//	    "proxy": {
//	      "api": "anthropic-messages",
//	      "base_url": "https://llm-proxy.example.com",
//	      "headers": {"X-Team": "platform"},
//	      "api_key_env": "PROXY_KEY"
//	    }
//	  },
//	  "models": [
//	    {"provider": "llamacpp", "id": "qwen3-coder", "name": "Qwen3 Coder (local)",
//	     "context_window": 262144, "max_output": 32768, "input": ["text"]},
//	    {"provider": "proxy", "id": "claude-opus-5-5", "context_window": 1000000, "max_output": 128000,
//	     "reasoning": true, "price": {"input": 4, "output": 20, "cache_read": 0.2, "cache_write": 5}},
//	    {"provider": "anthropic", "id": "claude-opus-5-5", "max_output": 64000}
//	  ],
//	  "failover": {"base_delay": "1s", "max_delay": "30s", "max_attempts": 4,
//	               "state_file": "~/.local/state/rein/cooldowns.json"}
//	}
//
// Fields:
//
//   - model: the default model reference.
//   - fallbacks: model references tried in order when the model in use is
//     rate-limited, overloaded, or its keys are rejected or out of quota.
//   - aliases: short names for model references.
//   - providers: by name. For a built-in provider (anthropic, openai,
//     gemini, openrouter, groq, deepseek, mistral, xai, ollama, lmstudio)
//     every field is optional and adjusts it; a new provider needs "api"
//     (anthropic-messages, openai-chat, openai-responses or gemini) and
//     "base_url". The key comes from at most one of "api_key" (the key
//     itself; better kept out of files), "api_key_env" (a variable name)
//     or "api_key_command" (a shell command printing the key, its output
//     reused for "api_key_ttl", default 10m); "no_key" marks a server that
//     needs none. "profiles" lists several named keys, each with its own
//     source, rotated with cooldowns by the failover; they replace the
//     single key. "compat" holds the switches of openai.Compat in
//     snake_case (no_developer_role, no_stream_options, max_tokens_field,
//     reasoning_field, replay_reasoning_field, no_reasoning_effort,
//     reasoning_object, no_prompt_cache_key, max_tool_call_id_length);
//     without it they are chosen from the base URL.
//   - models: full llm.Model objects (provider, id, name, api, base_url,
//     context_window, max_output, price, reasoning, input, headers). A
//     model with the provider and id of a known one overrides only the
//     fields it sets ("reasoning" can only be switched on this way).
//   - failover: backoff bounds, attempts per key and model, and the file
//     where key cooldowns are kept across runs ("~/" means $HOME).
//
// # Keys
//
// Without config, keys come from ANTHROPIC_API_KEY, OPENAI_API_KEY,
// GEMINI_API_KEY (or GOOGLE_API_KEY), OPENROUTER_API_KEY, GROQ_API_KEY,
// DEEPSEEK_API_KEY, MISTRAL_API_KEY and XAI_API_KEY; ollama and lmstudio
// need none. A key source written in the config wins over these
// variables, and profiles replace both. Keys are read for every request,
// so a rotated variable or an expiring command key is picked up. Keys
// never appear in errors, logs or String output. When a key is missing
// the error names the variable to set and the config field to fill.
package catalog
