#!/usr/bin/env python3
"""Chooses the guided engine's closed-question rules offline, from logged answers.

Run the engine over tuning calls with its choices logged, then score every variant on the same
answers (so a comparison between variants is paired, not two noisy runs):

    RUST_LOG=callscope_analysis=debug cargo run -p callscope-analysis --example analysis_quality -- \
        LEXICONS --openai URL MODEL --label local --split tune2 2> tune2.log
    scripts/closed-choices.py tune:tune.log tune2:tune2.log

Only tuning splits (tune, tune2) belong here: held-out calls are measured, never chosen on.
"""
import json, re, sys, math, itertools
ANSI = re.compile(r'\x1b\[[0-9;]*m')
REPO = __import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'crates', 'analysis', 'corpus') + '/'
def corpus_calls(split):
    out = []
    for f in ['calls.json', 'heldout.json', 'heldout-2.json', 'tune-2.json']:
        d = json.load(open(REPO + f))
        for c in d['calls']:
            if c.get('split', 'own') == split:
                tree = d['trees'][c['tree']] if c.get('tree') else d['categories']
                out.append((c, tree))
    return out
def wilson(k, n, z=1.96):
    if n == 0: return (0, 0)
    p = k / n; d = 1 + z*z/n; c = p + z*z/(2*n); r = z*math.sqrt(p*(1-p)/n + z*z/(4*n*n))
    return ((c - r)/d, (c + r)/d)
data = []
for arg in sys.argv[1:]:
    split, log = arg.split(':')
    assert split in ('tune', 'tune2', 'own'), f'{split}: held-out calls are measured, not chosen on'
    rows = []
    for line in open(log):
        line = ANSI.sub('', line)
        m = re.search(r'choices=(\{.*\})', line)
        if m: rows.append(json.loads(m.group(1)))
    calls = corpus_calls(split)
    assert len(rows) == len(calls), (split, len(rows), len(calls))
    for (c, tree), r in zip(calls, rows):
        name_to_key = {n: k for k, n in r['keys']}
        id_to_name = {t['id']: t['name'] for t in tree}
        parent = {name_to_key[t['name']]: (name_to_key[id_to_name[t['parent']]] if t['parent'] else None) for t in tree}
        expected = name_to_key[id_to_name[c['category']]]
        kw = r['keyword']
        parts = r['parts']
        def avg(field):
            ws = [p[field] for p in parts if p[field]]
            if not ws: return None
            keys = [k for k, _ in ws[0]]
            return {k: sum(w[i][1] for w in ws)/len(ws) for i, k in enumerate(keys)}
        prior = dict(zip([k for k, _ in r['keys']], r['prior'])) if r.get('prior') else None
        sprior = r.get('sentiment_prior')
        data.append(dict(prior=prior, sprior=sprior, id=c['id'], lang=c['language'], split=split, expected=expected, kw=kw, model=avg('category'),
                         sent=avg('sentiment'), sent_label=c['sentiment'], sent_ok=c.get('sentiment_acceptable', [c['sentiment']]), parent=parent))
print(len(data), 'calls', sum(1 for d in data if d['model'] is None), 'without probabilities')

def anc(d, k):
    out = []
    while k: out.append(k); k = d['parent'].get(k)
    return out
RULES = {}
def rule(f): RULES[f.__name__] = f; return f
@rule
def keywords(d): return d['kw'][0][0] if d['kw'] else None
@rule
def model(d): return max(d['model'], key=d['model'].get)
def kw_top(d, n):
    return [k for k, _ in d['kw'][:n]]
def likeliest(field):
    return lambda d: max(d[field], key=d[field].get)
def among_top(field, n):
    """The likeliest by `field` among the keywords' top n."""
    def choose(d):
        top = kw_top(d, n)
        return max(top, key=lambda k: d[field].get(k, 0)) if top else likeliest(field)(d)
    return choose
def mixed(field, share):
    """share x the keyword score (relative to the best) + the rest x `field`'s probability."""
    def choose(d):
        if not d['kw']: return likeliest(field)(d)
        kws = {k: s / d['kw'][0][1] for k, s in d['kw']}
        return max(d[field], key=lambda k: share*kws.get(k, 0) + (1-share)*d[field][k])
    return choose
for n in (2, 3, 5):
    RULES[f'model_among_kw_top{n}'] = among_top('model', n)
for t in (0.5, 0.7, 0.9):
    def g(d, t=t):
        m = model(d)
        if not d['kw'] or d['model'][m] >= t: return m
        return keywords(d)
    g.__name__ = f'kw_unless_model_ge{t}'; rule(g)
for a in (0.3, 0.5, 0.7):
    RULES[f'mix_kw{a}'] = mixed('model', a)
def subtree_p(d, k):
    return sum(p for kk, p in d['model'].items() if k in anc(d, kk))
@rule
def branch_by_model_leaf_by_kw(d):
    roots = [k for k in d['parent'] if d['parent'][k] is None]
    root = max(roots, key=lambda r: subtree_p(d, r))
    inside = [k for k, _ in d['kw'] if root in anc(d, k)]
    if inside: return inside[0]
    nodes = [k for k in d['model'] if root in anc(d, k)]
    return max(nodes, key=d['model'].get)

# Contextual calibration: each key's probability divided by its mean over the other calls of the
# same tree (leave-one-out), renormalised.
from collections import defaultdict
def tree_of(d): return tuple(sorted(d['parent']))
by_tree = defaultdict(list)
for d in data:
    if d['model']: by_tree[tree_of(d)].append(d)
for d in data:
    if not d['model']: continue
    others = [o for o in by_tree[tree_of(d)] if o is not d]
    # The engine's floor: 1 % spread over the options.
    prior = {k: sum(o['model'][k] for o in others)/len(others) + 0.01/len(d['model']) for k in d['model']}
    cal = {k: d['model'][k]/prior[k] for k in d['model']}
    t = sum(cal.values()); d['cal'] = {k: v/t for k, v in cal.items()}
RULES['calibrated'] = likeliest('cal')
for d in data:
    if d.get('prior') and d['model']:
        cf = {k: d['model'][k] / (d['prior'][k] + 1e-4) for k in d['model']}
        t = sum(cf.values()); d['cf'] = {k: v/t for k, v in cf.items()}
    else:
        d['cf'] = d['cal']
# Calibrated by the prior the engine logged: its running mean of the tree's earlier calls (null
# for the first calls); in the run that tried it, a content-free prompt's probabilities.
RULES['logged_prior'] = likeliest('cf')
for a in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
    RULES[f'mix_logged_prior_kw{a}'] = mixed('cf', a)
for n in (2, 3):
    RULES[f'cal_among_kw_top{n}'] = among_top('cal', n)
for a in (0.3, 0.5, 0.7):
    RULES[f'mix_cal_kw{a}'] = mixed('cal', a)

for lang in ('en', 'pl', 'all'):
    sub = [d for d in data if d['model'] and (lang == 'all' or d['lang'] == lang)]
    print(f'--- {lang} ({len(sub)} calls)')
    for name, f in RULES.items():
        k = sum(f(d) == d['expected'] for d in sub)
        lo, hi = wilson(k, len(sub))
        print(f'{name:28s} {k:3d}/{len(sub)} {k/len(sub):.2f} [{lo:.2f}, {hi:.2f}]')
    cov = {n: sum(d['expected'] in kw_top(d, n) for d in sub) for n in (1, 2, 3, 5)}
    print('expected in keyword top-n:', cov, 'no keywords:', sum(1 for d in sub if not d['kw']))

# Sentiment: the level written, the likeliest level, and levels weighed by tuned factors.
LEVEL = {'very_negative': 'negative', 'negative': 'negative', 'neutral': 'neutral', 'mixed': 'neutral', 'positive': 'positive', 'very_positive': 'positive'}
def levels(d):
    out = {'negative': 0, 'neutral': 0, 'positive': 0}
    for k, p in d['sent'].items(): out[LEVEL[k]] += p
    return out
def written(d): return LEVEL[max(d['sent'], key=d['sent'].get)]
def likeliest(d, w=(1, 1, 1)):
    l = levels(d); f = dict(zip(('negative', 'neutral', 'positive'), w))
    return max(l, key=lambda k: l[k]*f[k])
print('=== sentiment')
for lang in ('en', 'pl', 'all'):
    sub = [d for d in data if d['sent'] and (lang == 'all' or d['lang'] == lang)]
    def show(name, f):
        k = sum(f(d) == d['sent_label'] for d in sub); a = sum(f(d) in d['sent_ok'] for d in sub)
        lo, hi = wilson(k, len(sub))
        print(f'{lang} {name:30s} {k:3d}/{len(sub)} {k/len(sub):.2f} [{lo:.2f}, {hi:.2f}] acceptable {a/len(sub):.2f}')
    show('written', written)
    show('likeliest level', likeliest)
    S6 = ['very_negative', 'negative', 'neutral', 'mixed', 'positive', 'very_positive']
    def cf_sent(d):
        if not d.get('sprior'): return written(d)
        cal = {k: d['sent'][k] / (p + 1e-3) for k, p in zip(S6, d['sprior'])}
        l = {'negative': 0, 'neutral': 0, 'positive': 0}
        for k, p in cal.items(): l[LEVEL[k]] += p
        return max(l, key=l.get)
    show('calibrated by the logged prior', cf_sent)
    grid = [(a, b) for a in (0.5, 0.7, 1, 1.5, 2, 3) for b in (0.5, 0.7, 1, 1.5, 2, 3)]
    best = max(grid, key=lambda w: sum(likeliest(d, (w[0], w[1], 1)) == d['sent_label'] for d in sub))
    show(f'weighed neg,neu={best}', lambda d: likeliest(d, (best[0], best[1], 1)))
    from collections import Counter
    print('  confusion (label -> written):', Counter((d['sent_label'], written(d)) for d in sub).most_common())
print('=== paired')
sub = [d for d in data if d['model']]
for name in ('mix_cal_kw0.3', 'mix_cal_kw0.5', 'calibrated'):
    w = sum(RULES[name](d) == d['expected'] != keywords(d) for d in sub); l = sum(keywords(d) == d['expected'] != RULES[name](d) for d in sub)
    print(name, 'vs keywords: wins', w, 'losses', l)
for a in (3, 4, 5, 6, 8):
    for b in (1,):
        k = sum(likeliest(d, (a, b, 1)) == d['sent_label'] for d in sub)
        w = sum(likeliest(d, (a, b, 1)) == d['sent_label'] != written(d) for d in sub); l = sum(written(d) == d['sent_label'] != likeliest(d, (a, b, 1)) for d in sub)
        print(f'neg x{a} neu x{b}: {k}/124 wins {w} losses {l}', 'en', sum(likeliest(d, (a, b, 1)) == d['sent_label'] for d in sub if d['lang']=='en'), 'pl', sum(likeliest(d, (a, b, 1)) == d['sent_label'] for d in sub if d['lang']=='pl'))
