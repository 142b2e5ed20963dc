/**
 * Edits of bull-board 9.10.1's UI bundles that take off the page every control the dashboard's
 * guard refuses (`ALLOWED_WRITES` in dashboard.ts), so the page offers only what works.
 * bull-board has no per-action switch: `readOnlyMode` would hide Retry, promote and pause too.
 *
 * Each needle is the exact minified text of the pinned release, found exactly once in its file
 * (test/unit/dashboard-ui.test.ts checks the installed files). A React child that is `!1`
 * (false) renders nothing, so a hidden menu item or button becomes `!1`.
 */
export interface UiEdit {
  /** What the edit takes off the page. */
  readonly hides: string;
  /** The file, under bull-board UI's `dist/static`. */
  readonly file: string;
  /** The exact text the edit replaces. */
  readonly needle: string;
  readonly replacement: string;
}

const JOB_CARD = 'js/async/572.ae7ca45b68.js';
const QUEUE_PAGE = 'js/async/34.b38017c05b.js';
const OVERVIEW_PAGE = 'js/async/276.20dc9f3abd.js';
const QUEUE_INFO = 'js/async/503.937988efd6.js';

/** The job card's buttons per status; statuses left out get no buttons. */
const JOB_BUTTONS: UiEdit = {
  hides: 'job buttons other than Retry (failed) and Promote (delayed)',
  file: JOB_CARD,
  needle:
    'ed={[n.f.failed]:[ec.retry,ec.duplicate,ec.updateData,ec.clean],[n.f.delayed]:[ec.promote,ec.reschedule,ec.duplicate,ec.updateData,ec.clean],[n.f.completed]:[ec.duplicate,ec.retry,ec.clean],[n.f.waiting]:[ec.duplicate,ec.updateData,ec.clean],[n.f.waitingChildren]:[ec.removeChildren,ec.duplicate,ec.updateData,ec.clean],[n.f.prioritized]:[ec.reprioritise,ec.duplicate,ec.updateData,ec.clean],[n.f.paused]:[ec.duplicate,ec.updateData,ec.clean]}',
  replacement: 'ed={[n.f.failed]:[ec.retry],[n.f.delayed]:[ec.promote]}',
};

/** Hides one element of a children array. */
const hide = (file: string, hides: string, needle: string): UiEdit => ({
  hides,
  file,
  needle,
  replacement: '!1',
});

/**
 * The queue's menu is one module that both the queue page's and the overview's chunks carry
 * (whichever loads first is used), each minified with its own names: both are edited.
 */
const QUEUE_MENU: readonly UiEdit[] = [
  hide(
    QUEUE_PAGE,
    'queue menu: Add job',
    '(0,r.jsxs)(o.D,{onClick:a.addJob,children:[(0,r.jsx)(f,{}),h("QUEUE.ACTIONS.ADD_JOB")]})',
  ),
  hide(
    QUEUE_PAGE,
    'queue menu: Set concurrency',
    '"bullmq"===t.type&&!!a.onConcurrency&&(0,r.jsxs)(o.D,{onClick:a.onConcurrency,children:[(0,r.jsx)(v,{}),h("QUEUE.ACTIONS.SET_CONCURRENCY")]})',
  ),
  hide(
    QUEUE_PAGE,
    'queue menu: Set rate limit',
    't.supportsGlobalRateLimit&&!!a.onRateLimit&&(0,r.jsxs)(o.D,{onClick:a.onRateLimit,children:[(0,r.jsx)(L.r,{}),h("QUEUE.ACTIONS.SET_RATE_LIMIT")]})',
  ),
  hide(
    QUEUE_PAGE,
    'queue menu: Empty',
    '(0,r.jsxs)(o.D,{onClick:a.emptyQueue(t.name),children:[(0,r.jsx)(N.u,{}),h("QUEUE.ACTIONS.EMPTY")]})',
  ),
  hide(
    QUEUE_PAGE,
    'queue menu: Obliterate',
    '(0,r.jsxs)(o.D,{onClick:a.obliterateQueue(t.name),className:"danger-GDAQpl",children:[(0,r.jsx)(x,{}),h("QUEUE.ACTIONS.OBLITERATE")]})',
  ),
  hide(
    OVERVIEW_PAGE,
    'queue menu: Add job',
    '(0,l.jsxs)(c.D,{onClick:a.addJob,children:[(0,l.jsx)(j,{}),x("QUEUE.ACTIONS.ADD_JOB")]})',
  ),
  hide(
    OVERVIEW_PAGE,
    'queue menu: Set concurrency',
    '"bullmq"===s.type&&!!a.onConcurrency&&(0,l.jsxs)(c.D,{onClick:a.onConcurrency,children:[(0,l.jsx)(g,{}),x("QUEUE.ACTIONS.SET_CONCURRENCY")]})',
  ),
  hide(
    OVERVIEW_PAGE,
    'queue menu: Set rate limit',
    's.supportsGlobalRateLimit&&!!a.onRateLimit&&(0,l.jsxs)(c.D,{onClick:a.onRateLimit,children:[(0,l.jsx)(b.r,{}),x("QUEUE.ACTIONS.SET_RATE_LIMIT")]})',
  ),
  hide(
    OVERVIEW_PAGE,
    'queue menu: Empty',
    '(0,l.jsxs)(c.D,{onClick:a.emptyQueue(s.name),children:[(0,l.jsx)(U.u,{}),x("QUEUE.ACTIONS.EMPTY")]})',
  ),
  hide(
    OVERVIEW_PAGE,
    'queue menu: Obliterate',
    '(0,l.jsxs)(c.D,{onClick:a.obliterateQueue(s.name),className:"danger-GDAQpl",children:[(0,l.jsx)(f,{}),x("QUEUE.ACTIONS.OBLITERATE")]})',
  ),
];

/** Above a status's job list: Retry all and Promote all stay, Clean all goes. */
const CLEAN_ALL = hide(
  QUEUE_PAGE,
  'status list: Clean all',
  '[n.f.failed,n.f.delayed,n.f.completed].includes(t)&&(0,r.jsx)("li",{children:(0,r.jsxs)(P.$,{onClick:a.cleanAll(s.name,t),className:E,children:[(0,r.jsx)(N.u,{}),o("QUEUE.ACTIONS.CLEAN_ALL")]})})',
);

/** The queue info dialog offers its concurrency and rate-limit pencils when this is true. */
const QUEUE_INFO_PENCILS: UiEdit = {
  hides: 'queue info: the Set concurrency and Set rate limit pencils',
  file: QUEUE_INFO,
  needle: 'C=!a.readOnlyMode,',
  replacement: 'C=!1,',
};

export const UI_EDITS: readonly UiEdit[] = [
  JOB_BUTTONS,
  ...QUEUE_MENU,
  CLEAN_ALL,
  QUEUE_INFO_PENCILS,
];
