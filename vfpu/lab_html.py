"""A self-contained web page of a lab run (inline CSS and JS, no network): the register
file after each instruction (click an instruction, or use the arrow keys), the current
instruction's source cells (blue) and destination cells (orange), its reads, writes and
timing, and a timeline of every instruction: stall (red), issue (blue) and result
latency (light) on one cycle axis."""

import html
import json

from vfpu.lab import bits_value, cell_name, fmt_value
from vfpu.lab_text import _values, timing_line


def _page_data(trace) -> dict:
    steps = []
    for s in trace.steps:
        steps.append({
            "i": s.index, "pc": f"{s.pc:08x}", "word": f"{s.word:08x}", "text": s.text,
            "src": sorted({cell_name(c) for a in s.reads if a.kind == "vpr" for c in a.cells}),
            "dst": sorted({cell_name(c) for a in s.writes if a.kind == "vpr" for c in a.cells}),
            "reads": [_access_text(a) for a in s.reads],
            "writes": [_access_text(a) for a in s.writes],
            "time": timing_line(s.timing, trace.timed).strip(),
            "t": s.timing.as_dict(),
            "vals": [fmt_value(bits_value(b), 4) for b in s.vpr_bits],
        })
    return {"steps": steps, "initial": [fmt_value(bits_value(b), 4) for b in trace.initial_vpr_bits],
            "total": trace.total_cycles, "mhz": trace.clock_mhz, "timed": trace.timed}


def _access_text(a) -> str:
    vals = _values(a)
    note = f" {a.note}" if a.note else ""
    return f"{a.name}{note}" + (f" = {vals}" if vals else "")


CSS = """
body{font:14px/1.35 system-ui,sans-serif;margin:12px;background:#fafafa;color:#222}
h1{font-size:18px;margin:0 0 8px}
#top{display:flex;gap:16px;align-items:flex-start}
#prog{min-width:300px;max-height:430px;overflow:auto;background:#fff;border:1px solid #ccc}
#prog div{font:13px monospace;padding:2px 6px;cursor:pointer;white-space:pre}
#prog div.cur{background:#1d4ed8;color:#fff}
#regs{display:grid;grid-template-columns:repeat(4,auto);gap:10px}
table.m{border-collapse:collapse;background:#fff}
table.m caption{font-weight:bold;font-size:12px;text-align:left}
table.m td{border:1px solid #bbb;width:54px;height:22px;text-align:right;padding:0 4px;font:12px monospace}
table.m th{font:10px monospace;color:#888}
td.chg{background:#fff7d6}
td.src{background:#93c5fd;outline:2px solid #1d4ed8}
td.dst{background:#fdba74;outline:2px solid #c2410c}
td.src.dst{background:linear-gradient(135deg,#93c5fd 50%,#fdba74 50%)}
#info{font:13px monospace;background:#fff;border:1px solid #ccc;padding:6px;margin-top:10px;white-space:pre-wrap}
#legend span{display:inline-block;padding:0 6px;margin-right:8px;font-size:12px}
#tl{margin-top:12px;background:#fff;border:1px solid #ccc;padding:6px;overflow-x:auto}
#tl .row,#tl .axis{position:relative;height:16px;font:11px monospace;cursor:pointer}
#tl .row.cur{background:#e0e7ff}
#tl .lab{position:absolute;left:0;width:230px;overflow:hidden;white-space:nowrap}
#tl .bar{position:absolute;top:3px;height:10px}
#tl .tick{position:absolute;top:2px;border-left:1px solid #999;padding-left:2px;color:#666}
.stall{background:#dc2626}.issue{background:#1d4ed8}.lat{background:#93c5fd;opacity:.6}
"""

JS = """
const D = JSON.parse(document.getElementById('data').textContent);
let cur = 0;
const regs = document.getElementById('regs'), prog = document.getElementById('prog');
function name(m,c,r){return 'S'+m+c+r;}
for (let m=0;m<8;m++){
  const t=document.createElement('table'); t.className='m';
  let h='<caption>M'+m+'00 (matrix '+m+')</caption><tr><th></th>';
  for(let c=0;c<4;c++) h+='<th>c'+c+'</th>';
  h+='</tr>';
  for(let r=0;r<4;r++){ h+='<tr><th>r'+r+'</th>';
    for(let c=0;c<4;c++) h+='<td id="cell-'+name(m,c,r)+'" title="'+name(m,c,r)+'"></td>';
    h+='</tr>'; }
  t.innerHTML=h; regs.appendChild(t);
}
D.steps.forEach((s,i)=>{const d=document.createElement('div');
  d.textContent=('#'+s.i).padEnd(4)+' '+s.text; d.id='ins-'+i; d.onclick=()=>show(i); prog.appendChild(d);});
const tl=document.getElementById('tl');
const end=Math.max(1,...D.steps.map(s=>Math.max(s.t.next,s.t.ready||0)));
const scale=Math.max(2,Math.min(24,(Math.max(600,tl.clientWidth-260))/end));
D.steps.forEach((s,i)=>{const r=document.createElement('div'); r.className='row'; r.id='tl-'+i;
  r.onclick=()=>show(i);
  let h='<span class="lab">#'+s.i+' '+s.text.replace(/&/g,'&amp;').replace(/</g,'&lt;')+'</span>';
  const x=c=>(240+c*scale)+'px', w=n=>Math.max(1,n*scale)+'px';
  if(s.t.ready!==null) h+='<span class="bar lat" style="left:'+x(s.t.issue)+';width:'+w(s.t.ready-s.t.issue)+'" title="latency '+(s.t.ready-s.t.issue)+'"></span>';
  const busy=1+(s.t.stalls['vfpu-issue']||0), after=s.t.next-s.t.issue-busy;
  if(s.t.issue>s.t.start) h+='<span class="bar stall" style="left:'+x(s.t.start)+';width:'+w(s.t.issue-s.t.start)+'" title="stall '+(s.t.issue-s.t.start)+'"></span>';
  h+='<span class="bar issue" style="left:'+x(s.t.issue)+';width:'+w(busy)+'" title="issue @'+s.t.issue+'"></span>';
  if(after>0) h+='<span class="bar stall" style="left:'+x(s.t.issue+busy)+';width:'+w(after)+'" title="stall '+after+' after issue"></span>';
  r.innerHTML=h; tl.appendChild(r);});
tl.style.minWidth=(260+end*scale)+'px';
const axis=document.createElement('div'); axis.className='axis'; let ah='<span class="lab">cycle</span>';
const tick=[1,2,5,10,20,50,100,200,500,1000,2000,5000].find(t=>t*scale>=40)||10000;
for(let c=0;c<=end;c+=tick) ah+='<span class="tick" style="left:'+(240+c*scale)+'px">'+c+'</span>';
axis.innerHTML=ah; tl.appendChild(axis);
function show(i){
  if(!D.steps.length) return;
  cur=Math.max(0,Math.min(D.steps.length-1,i));
  const s=D.steps[cur], changed=new Set();
  for(let k=0;k<=cur;k++) D.steps[k].dst.forEach(c=>changed.add(c));
  const reads=new Set(s.src), writes=new Set(s.dst);
  for(let m=0;m<8;m++)for(let c=0;c<4;c++)for(let r=0;r<4;r++){
    const n=name(m,c,r), td=document.getElementById('cell-'+n);
    td.textContent=s.vals[m*16+c*4+r];
    td.className=(changed.has(n)?'chg ':'')+(reads.has(n)?'src ':'')+(writes.has(n)?'dst':'');
  }
  document.querySelectorAll('#prog div.cur,#tl .row.cur').forEach(e=>e.classList.remove('cur'));
  document.getElementById('ins-'+cur).classList.add('cur');
  document.getElementById('tl-'+cur).classList.add('cur');
  document.getElementById('ins-'+cur).scrollIntoView({block:'nearest'});
  document.getElementById('info').textContent='#'+s.i+'  '+s.pc+'  '+s.word+'  '+s.text+'\\n'+
    s.reads.map(a=>'read   '+a).concat(s.writes.map(a=>'wrote  '+a)).join('\\n')+'\\n'+s.time;
  document.body.dataset.step=String(cur);
}
document.addEventListener('keydown',e=>{
  if(e.key==='ArrowRight'||e.key==='ArrowDown'||e.key==='j'){show(cur+1);e.preventDefault();}
  else if(e.key==='ArrowLeft'||e.key==='ArrowUp'||e.key==='k'){show(cur-1);e.preventDefault();}
  else if(e.key==='Home'){show(0);} else if(e.key==='End'){show(D.steps.length-1);}
});
show(0);
"""


def render(trace, title: str = "VFPU lab") -> str:
    data = json.dumps(_page_data(trace)).replace("</", "<\\/")
    clock = f" at {trace.clock_mhz} MHz" if trace.clock_mhz else ""
    summary = f"{len(trace.steps)} instructions, {trace.total_cycles} cycles{clock}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{CSS}</style></head>
<body>
<h1>{html.escape(title)}: {html.escape(summary)}</h1>
<div id="legend"><span class="src" style="background:#93c5fd">source cells</span><span style="background:#fdba74">destination cells</span><span style="background:#fff7d6">written so far</span>
<span>keys: &larr; &rarr; (or click) to step</span></div>
<div id="top"><div id="prog"></div><div><div id="regs"></div><div id="info"></div></div></div>
<div id="tl"><b>timeline</b> (cycles; <span class="stall">&nbsp;stall&nbsp;</span> <span class="issue" style="color:#fff">&nbsp;issue&nbsp;</span> <span class="lat">&nbsp;latency&nbsp;</span>)</div>
<script type="application/json" id="data">{data}</script>
<script>{JS}</script>
</body></html>
"""
