import sys
for line in sys.stdin:
    p=line.split()
    try: v=[float(x) for x in p[1:]]
    except ValueError: print(line,end=''); continue
    if p[0]=='total' or max(v)-min(v)>3: print(line,end='')
