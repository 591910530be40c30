// A Santa Cruz game's web page: draws itself from the page's JSON document (bot/web/document.py), zooms and pans
// the board (mouse, touch, keyboard), steps through every position with the replay slider, and follows the game
// live (Server-Sent Events). Every text is set as text, never as HTML. The offline demo's page carries one
// document per position instead of asking a server for them.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const docNode = $("doc");
  if (!docNode) return;
  let doc = JSON.parse(docNode.textContent);
  const offlineNode = $("positions");
  const offline = offlineNode ? JSON.parse(offlineNode.textContent) : null;
  const lang = doc.lang;
  let following = doc.at === doc.positions;
  let wholeLog = doc.log;  // the offline page's positions leave the (same) log out
  let adviceFor = null;  // the game's version the coach's advice shown is about

  const text = (node, value) => { if (node) node.textContent = value == null ? "" : String(value); };
  const element = (tag, className, value) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (value != null) node.textContent = String(value);
    return node;
  };

  // ---------------------------------------------------------------- the board: zoom and pan

  const viewport = $("viewport");
  const board = $("board");
  const MAX_SCALE = 2;

  class Viewer {
    constructor(box, img) {
      this.box = box;
      this.img = img;
      this.scale = 1;
      this.min = 1;
      this.x = 0;
      this.y = 0;
      this.pointers = new Map();
      this.pinch = null;
      this.fitted = false;
    }

    size() {
      return { w: this.box.clientWidth, h: this.box.clientHeight,
               iw: this.img.naturalWidth || 1, ih: this.img.naturalHeight || 1 };
    }

    fit() {
      const { w, h, iw, ih } = this.size();
      this.min = Math.min(w / iw, h / ih);
      this.scale = this.min;
      this.x = (w - iw * this.scale) / 2;
      this.y = (h - ih * this.scale) / 2;
      this.fitted = true;
      this.apply();
    }

    first() {
      // as wide as the frame, the island at the top (the picture is tall: its panel and track are below)
      const { w, h, iw, ih } = this.size();
      this.min = Math.min(w / iw, h / ih);
      this.scale = Math.min(MAX_SCALE, Math.max(this.min, w / iw));
      this.x = 0;
      this.y = 0;
      this.fitted = true;
      this.apply();
    }

    clamp() {
      const { w, h, iw, ih } = this.size();
      const sw = iw * this.scale;
      const sh = ih * this.scale;
      this.x = sw <= w ? (w - sw) / 2 : Math.min(0, Math.max(w - sw, this.x));
      this.y = sh <= h ? (h - sh) / 2 : Math.min(0, Math.max(h - sh, this.y));
    }

    apply() {
      this.clamp();
      this.img.style.transform = `translate(${this.x}px, ${this.y}px) scale(${this.scale})`;
      this.box.dataset.zoom = (this.scale / this.min).toFixed(2);
    }

    zoomAt(factor, cx, cy) {
      const scale = Math.min(MAX_SCALE, Math.max(this.min, this.scale * factor));
      this.x = cx - (cx - this.x) * (scale / this.scale);
      this.y = cy - (cy - this.y) * (scale / this.scale);
      this.scale = scale;
      this.apply();
    }

    zoomCentre(factor) {
      const { w, h } = this.size();
      this.zoomAt(factor, w / 2, h / 2);
    }

    pan(dx, dy) {
      this.x += dx;
      this.y += dy;
      this.apply();
    }

    point(event) {
      const rect = this.box.getBoundingClientRect();
      return { x: event.clientX - rect.left, y: event.clientY - rect.top };
    }

    listen() {
      const box = this.box;
      box.addEventListener("wheel", (event) => {
        event.preventDefault();
        const p = this.point(event);
        this.zoomAt(Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0015)), p.x, p.y);
      }, { passive: false });
      box.addEventListener("dblclick", (event) => {
        const p = this.point(event);
        this.zoomAt(2, p.x, p.y);
      });
      box.addEventListener("pointerdown", (event) => {
        try {
          box.setPointerCapture(event.pointerId);
        } catch (error) {
          // a pointer the browser no longer tracks: it is followed without capture
        }
        this.pointers.set(event.pointerId, this.point(event));
        if (this.pointers.size === 2) this.pinch = this.spread();
        box.classList.add("dragging");
      });
      box.addEventListener("pointermove", (event) => {
        const last = this.pointers.get(event.pointerId);
        if (!last) return;
        const p = this.point(event);
        this.pointers.set(event.pointerId, p);
        if (this.pointers.size >= 2 && this.pinch) {
          const now = this.spread();
          this.zoomAt(now.d / this.pinch.d, now.x, now.y);
          this.pan(now.x - this.pinch.x, now.y - this.pinch.y);
          this.pinch = now;
        } else if (this.pointers.size === 1) {
          this.pan(p.x - last.x, p.y - last.y);
        }
      });
      const end = (event) => {
        this.pointers.delete(event.pointerId);
        this.pinch = this.pointers.size === 2 ? this.spread() : null;
        if (!this.pointers.size) box.classList.remove("dragging");
      };
      box.addEventListener("pointerup", end);
      box.addEventListener("pointercancel", end);
      box.addEventListener("keydown", (event) => {
        const step = 60;
        const keys = {
          "+": () => this.zoomCentre(1.25), "=": () => this.zoomCentre(1.25), "-": () => this.zoomCentre(0.8),
          "_": () => this.zoomCentre(0.8), "0": () => this.fit(),
          "ArrowLeft": () => this.pan(step, 0), "ArrowRight": () => this.pan(-step, 0),
          "ArrowUp": () => this.pan(0, step), "ArrowDown": () => this.pan(0, -step),
        };
        const act = keys[event.key];
        if (act && !event.ctrlKey && !event.metaKey && !event.altKey) {
          event.preventDefault();
          act();
        }
      });
      window.addEventListener("resize", () => {
        const zoomed = this.scale / this.min;
        const { w, h, iw, ih } = this.size();
        this.min = Math.min(w / iw, h / ih);
        this.scale = Math.max(this.min, this.min * zoomed);
        this.apply();
      });
    }

    spread() {
      const [a, b] = [...this.pointers.values()];
      return { d: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    }
  }

  const viewer = viewport && board ? new Viewer(viewport, board) : null;
  if (viewer) {
    document.body.classList.add("zoomable");
    viewer.listen();
    const first = () => { if (!viewer.fitted) viewer.first(); else viewer.apply(); };
    if (board.complete && board.naturalWidth) first();
    board.addEventListener("load", first);
    $("zoom-in").addEventListener("click", () => viewer.zoomCentre(1.25));
    $("zoom-out").addEventListener("click", () => viewer.zoomCentre(0.8));
    $("zoom-fit").addEventListener("click", () => viewer.fit());
  }

  let shownSrc = board ? board.getAttribute("src") : null;
  const showBoard = (src, alt) => {
    if (!board || !src || src === shownSrc) return;
    shownSrc = src;
    const next = new Image();
    next.addEventListener("load", () => {
      if (shownSrc !== src) return;
      const resized = next.naturalWidth !== board.naturalWidth || next.naturalHeight !== board.naturalHeight;
      board.src = src;
      board.alt = alt;
      if (resized && viewer) viewer.fitted = false;  // a seat's own picture is narrower: start it afresh
    });
    next.src = src;
  };

  // ---------------------------------------------------------------- the document drawn

  const renderList = (list, lines) => {
    if (!list) return;
    list.replaceChildren(...(lines || []).map((line) => element("li", null, line)));
  };

  const renderPlayers = (players) => {
    const list = $("players");
    if (!list) return;
    list.replaceChildren(...players.map((p) => {
      const item = element("li", p.to_move ? "player to-move" : "player");
      const mark = element("span", "mark", p.letter);
      mark.style.background = p.colour;
      mark.style.color = p.ink;
      const who = element("span", "who");
      who.append(element("bdi", "name", p.name));
      for (const tag of p.tags) who.append(" ", element("span", "tag", tag));
      item.append(mark, who, element("span", "score", p.score));
      for (const line of p.lines) item.append(element("span", "line", line));
      return item;
    }));
  };

  const renderLog = (items, at, scroll) => {
    const list = $("log");
    if (!list) return;
    let current = null;
    list.replaceChildren(...items.map((item) => {
      if (item.heading) return element("li", "heading", item.heading);
      if (item.note) return element("li", "note", item.note);
      const node = element("li", item.n > at ? "move later" : item.n === at ? "move current" : "move");
      node.dataset.n = item.n;
      node.append(element("span", "n", item.n), " ", item.text);
      if (item.n === at) current = node;
      return node;
    }));
    if (scroll && current && list.scrollHeight > list.clientHeight) {
      const top = current.getBoundingClientRect().top - list.getBoundingClientRect().top;
      list.scrollTop += top - list.clientHeight / 2 + current.clientHeight / 2;
    }
  };

  const renderYou = (you) => {
    if (!you || !$("you")) return;
    text($("you-title"), you.title);
    text($("you-private"), you.private);
    text($("you-cards"), you.building_cards);
    const scoring = $("you-scoring");
    const items = you.scoring.map((card) => {
      const item = element("li");
      item.append(element("strong", null, card.name), " ", element("span", "text", card.text));
      if (card.now) item.append(" ", element("span", "now", card.now));
      return item;
    });
    if (you.scoring_none) items.push(element("li", null, you.scoring_none));
    scoring.replaceChildren(...items);
    text($("you-chips"), you.chips);
    renderList($("you-builds"), you.builds);
    $("you-builds-part").hidden = !you.builds.length;
    $("coach").hidden = !you.coach.text && !you.coach.ask;
    const discarded = $("you-discarded");
    discarded.hidden = !you.discarded;
    text(discarded, you.discarded || "");
    text($("coach-text"), you.coach.text);
    if (adviceFor !== null && adviceFor !== doc.version) {  // the advice was for a position that has passed
      renderList($("coach-lines"), []);
      adviceFor = null;
    }
    const ask = $("coach-ask");
    ask.hidden = !you.coach.ask;
    text(ask, you.coach.ask || "");
    ask.dataset.url = you.coach.url || "";
  };

  const slider = $("slider");
  const render = (next, scroll) => {
    doc = next;
    document.title = next.title;
    text($("players-line"), next.players_line);
    text($("turn"), next.turn);
    text($("phase"), next.phase);
    text($("position"), next.position);
    if (slider) {
      slider.max = String(next.positions);
      slider.value = String(next.at);
    }
    if (next.board) showBoard(next.board.src, next.board.alt);
    renderPlayers(next.players);
    renderList($("played"), next.played);
    if (next.log) wholeLog = next.log;
    renderLog(wholeLog, next.at, scroll);
    renderList($("result"), next.result);
    if (next.you) renderYou(next.you);
    buttons();
  };

  const buttons = () => {
    if (!slider) return;
    const at = Number(slider.value);
    $("previous").disabled = at <= 0;
    $("next").disabled = at >= Number(slider.max);
    $("now").disabled = following && at === Number(slider.max);
  };

  // ---------------------------------------------------------------- the replay

  let loading = 0;
  const load = async (at, scroll) => {
    if (offline) {
      render(offline[at], scroll);
      return;
    }
    const ticket = ++loading;
    const url = new URL(doc.state, window.location.href);
    if (at !== null) url.searchParams.set("at", String(at));
    url.searchParams.set("lang", lang);
    try {
      const answer = await fetch(url, { credentials: "omit", cache: "no-store" });
      if (!answer.ok) return;
      const next = await answer.json();
      if (ticket === loading) render(next, scroll);
    } catch (error) {
      // the next change or step asks again
    }
  };

  let timer = null;
  const go = (at, scroll = true) => {
    const most = slider ? Number(slider.max) : doc.positions;
    at = Math.max(0, Math.min(most, at));
    following = at === most;
    if (slider) slider.value = String(at);
    buttons();
    clearTimeout(timer);
    if (offline) load(at, scroll);  // every position is in the page already
    else timer = setTimeout(() => load(following ? null : at, scroll), 120);
  };

  if (slider) {
    slider.addEventListener("input", () => go(Number(slider.value)));
    $("previous").addEventListener("click", () => go(Number(slider.value) - 1));
    $("next").addEventListener("click", () => go(Number(slider.value) + 1));
    $("now").addEventListener("click", () => { hideMoved(); go(Number(slider.max)); });
    buttons();
  }
  const log = $("log");
  if (log) {
    log.addEventListener("click", (event) => {
      const item = event.target.closest("li.move");
      if (item) go(Number(item.dataset.n), false);
    });
  }

  // ---------------------------------------------------------------- live

  const live = $("live");
  const say = (key) => {
    if (!live) return;
    live.hidden = false;
    live.dataset.state = key;
    text(live, live.dataset[key]);
  };
  const hideMoved = () => { if (live && live.dataset.state === "moved") say("on"); };

  if (!offline && doc.live && doc.events && window.EventSource) {
    const source = new EventSource(doc.events);
    source.addEventListener("version", (event) => {
      const news = JSON.parse(event.data);
      say(news.status === "over" || news.status === "abandoned" ? "ended" : "on");
      if (news.version === doc.version) return;
      if (following) {
        load(null, true);
      } else if (slider) {
        slider.max = String(news.positions);
        buttons();
        say("moved");
      }
      if (news.status === "over" || news.status === "abandoned") source.close();
    });
    source.addEventListener("gone", () => { source.close(); say("ended"); });
    source.addEventListener("error", () => { if (source.readyState !== EventSource.CLOSED) say("waiting"); });
  } else if (!offline && !doc.live) {
    say("ended");
  }
  if (live && slider) {
    live.addEventListener("click", () => { if (live.dataset.state === "moved") { say("on"); go(Number(slider.max)); } });
  }

  // ---------------------------------------------------------------- the coach (a seat's own page)

  const ask = $("coach-ask");
  if (ask) {
    ask.addEventListener("click", async () => {
      const url = ask.dataset.url || (doc.you && doc.you.coach.url);
      if (!url) return;
      ask.disabled = true;
      text($("coach-text"), $("coach").dataset.thinking);
      renderList($("coach-lines"), []);
      try {
        const answer = await fetch(new URL(url, window.location.href) + `?lang=${lang}`,
                                   { method: "POST", credentials: "omit" });
        const said = await answer.json();
        text($("coach-text"), said.error || "");
        renderList($("coach-lines"), said.lines || []);
        adviceFor = doc.version;
      } catch (error) {
        text($("coach-text"), "");
      } finally {
        ask.disabled = false;
      }
    });
  }

  document.body.classList.add("ready");
  if (offline) render(offline[doc.at], false);
  else render(doc, false);
})();
