#!/usr/bin/env python3
"""A caching proxy in front of an OpenAI-compatible endpoint, for tuning what follows the model.

The analysis engines ask the model at temperature 0, so the same request gets the same answer.
Put this between `analysis_quality` and the sidecar, run the tuning calls once to fill the cache,
and every later run whose prompts are unchanged (a filter, a threshold, the deadline rules) is
scored on exactly the same answers, in seconds instead of a quarter of an hour, so two variants
are compared call by call rather than as two noisy runs:

    scripts/llm-replay.py --upstream http://127.0.0.1:8093 --listen 127.0.0.1:8094 --cache /tmp/llm-cache &
    analysis_quality LEXICONS --openai http://127.0.0.1:8094/v1 MODEL --label local --split tune2

A request that is not in the cache goes upstream (and is kept); `--offline` refuses it instead,
which shows that a change altered the prompts. Timings through the cache mean nothing.
"""
import argparse, hashlib, http.server, json, os, sys, tempfile, urllib.error, urllib.request


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--upstream', required=True, help='base URL of the real endpoint, e.g. http://127.0.0.1:8093')
    parser.add_argument('--listen', default='127.0.0.1:8094')
    parser.add_argument('--cache', required=True, help='folder of cached answers, one file per request')
    parser.add_argument('--offline', action='store_true', help='answer from the cache only; 502 for anything else')
    args = parser.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    counts = {'hit': 0, 'miss': 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
            # The upstream is part of the key: another server behind the same model name is
            # another model.
            key = hashlib.sha256(args.upstream.encode() + b'\0' + self.path.encode() + b'\0' + body).hexdigest()
            path = os.path.join(args.cache, key)
            if os.path.exists(path):
                counts['hit'] += 1
                with open(path, 'rb') as f:
                    return self.answer(200, f.read())
            if args.offline:
                counts['miss'] += 1
                return self.answer(502, b'{"error":{"message":"not in the replay cache"}}')
            request = urllib.request.Request(args.upstream.rstrip('/') + self.path, data=body, headers={'Content-Type': 'application/json'})
            try:
                with urllib.request.urlopen(request, timeout=600) as response:
                    answer = response.read()
            except urllib.error.HTTPError as e:
                # Refusals are passed on, never kept: a retry should reach the model again.
                return self.answer(e.code, e.read())
            except (urllib.error.URLError, OSError) as e:
                return self.answer(502, json.dumps({'error': {'message': f'upstream unreachable: {e}'}}).encode())
            counts['miss'] += 1
            # Written whole to a file of its own, then renamed, so an interrupted run leaves no
            # half answer behind and two identical requests at once cannot mix theirs.
            fd, part = tempfile.mkstemp(dir=args.cache, suffix='.part')
            with os.fdopen(fd, 'wb') as f:
                f.write(answer)
            os.replace(part, path)
            self.answer(200, answer)

        def do_GET(self):
            with urllib.request.urlopen(args.upstream.rstrip('/') + self.path, timeout=30) as response:
                self.answer(response.status, response.read())

        def answer(self, status, body):
            self.send_response(status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    host, port = args.listen.rsplit(':', 1)
    server = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        print(f"llm-replay: {counts['hit']} answered from the cache, {counts['miss']} not", file=sys.stderr)


if __name__ == '__main__':
    main()
