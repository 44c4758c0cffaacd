// Redq dashboard. Every value from the server is put on the page as text (textContent, text nodes, attribute values
// set one by one), never as HTML, so that payloads, ids, errors and queue names cannot inject markup or scripts.
'use strict';

const POLL_MILLIS = 2000;
const HISTORY_POINTS = 150; // five minutes of polls
const STATES = ['ready', 'delayed', 'reserved', 'dead', 'completed'];

let session = { readOnly: true, csrf: null, maxPageSize: 100 };
let timer = null;
// per queue, the counts this page has seen: the charts of the overview and of a queue
const history = new Map();

// ---- DOM helpers: text only ----

function el(tag, attributes, ...children) {
	const element = document.createElement(tag);
	for (const [name, value] of Object.entries(attributes || {})) {
		if (value === null || value === undefined || value === false) {
			continue;
		}
		if (name.startsWith('on')) {
			element.addEventListener(name.substring(2), value);
		}
		else {
			element.setAttribute(name, value === true ? '' : String(value));
		}
	}
	for (const child of children.flat(Infinity)) {
		if (child !== null && child !== undefined) {
			element.append(child instanceof Node ? child : document.createTextNode(String(child)));
		}
	}
	return element;
}

function svg(tag, attributes, ...children) {
	const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
	for (const [name, value] of Object.entries(attributes || {})) {
		element.setAttribute(name, String(value));
	}
	for (const child of children) {
		element.append(child instanceof Node ? child : document.createTextNode(String(child)));
	}
	return element;
}

function link(text, ...parts) {
	return el('a', { href: '#/' + parts.map(encodeURIComponent).join('/') }, text);
}

function show(...content) {
	document.getElementById('view').replaceChildren(...content.flat(Infinity)
		.filter((part) => part !== null && part !== undefined));
}

function status(text, error) {
	const line = document.getElementById('status');
	line.textContent = text;
	line.className = error ? 'error' : '';
}

function message(text, error) {
	return el('div', { class: error ? 'message error' : 'message', role: error ? 'alert' : 'status' }, text);
}

// ---- formatting, in the viewer's time zone and locale ----

function time(millis) {
	return (millis === null || millis === undefined) ? '' : new Date(millis).toLocaleString();
}

// a delayed job without a due time is parked in line behind its limits until a place is freed for it
function when(job) {
	return (job.state === 'DELAYED' && (job.at === null || job.at === undefined)) ? 'in line for its limits' : time(job.at);
}

function age(millis) {
	if (!millis) {
		return '0 s';
	}
	const seconds = Math.round(millis / 1000);
	if (seconds < 120) {
		return seconds + ' s';
	}
	if (seconds < 7200) {
		return Math.round(seconds / 60) + ' min';
	}
	return Math.round(seconds / 3600) + ' h';
}

function firstLine(text) {
	return text ? text.split('\n')[0].substring(0, 160) : '';
}

// ---- server ----

async function get(path) {
	const response = await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
	return answer(response);
}

// every change carries a header that a form or a script of another site cannot send, and the browser adds the page's
// Origin: the server refuses a change without them
async function post(path, parameters) {
	const headers = { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded',
		'X-Redq-Dashboard': '1' };
	if (session.csrf) {
		headers[session.csrf.header] = session.csrf.token;
	}
	const response = await fetch(path, { method: 'POST', headers, credentials: 'same-origin',
		body: new URLSearchParams(parameters || []) });
	return answer(response);
}

async function answer(response) {
	if (response.status === 404) {
		return null;
	}
	let body = null;
	try {
		body = await response.json();
	}
	catch (ignored) {
		// not JSON: say the status
	}
	if (!response.ok) {
		throw new Error((body && body.error) ? body.error : ('The server answered ' + response.status));
	}
	return body;
}

function api(...parts) {
	return 'api/' + parts.map(encodeURIComponent).join('/');
}

// ---- charts: inline SVG ----

function remember(queues) {
	const now = Date.now();
	for (const queue of queues) {
		const points = history.get(queue.name) || [];
		points.push({ at: now, backlog: queue.ready + queue.delayed + queue.reserved, dead: queue.dead });
		if (points.length > HISTORY_POINTS) {
			points.shift();
		}
		history.set(queue.name, points);
	}
}

// a line through values at evenly spaced places across the width, right-aligned when there are fewer values than
// places, the highest value `top` below the top
function line(values, width, height, top, max, kind, places = values.length) {
	const step = width / Math.max(1, places - 1);
	const offset = places - values.length;
	const points = values.map((value, i) =>
		((offset + i) * step).toFixed(1) + ',' + (height - 2 - (value / max) * (height - top)).toFixed(1));
	return svg('polyline', { class: kind, points: points.join(' ') });
}

// the counts this page has seen, one place per poll
function chart(name, width, height) {
	const points = history.get(name) || [];
	const max = Math.max(1, ...points.map((point) => Math.max(point.backlog, point.dead)));
	const chart = svg('svg', { class: 'chart', viewBox: '0 0 ' + width + ' ' + height,
		preserveAspectRatio: 'none', role: 'img', 'data-queue': name });
	chart.append(svg('title', {}, 'Jobs waiting or running, and dead jobs, over the last minutes'));
	chart.append(svg('line', { class: 'axis', x1: 0, y1: height - 1, x2: width, y2: height - 1 }));
	chart.append(svg('text', { x: 2, y: 10 }, String(max)));
	chart.append(line(points.map((point) => point.backlog), width, height, 4, max, 'backlog', HISTORY_POINTS),
		line(points.map((point) => point.dead), width, height, 4, max, 'dead', HISTORY_POINTS));
	return chart;
}

function legend() {
	return el('div', { class: 'legend' }, el('span', { class: 'backlog' }, '— ready, delayed and running'),
		el('span', { class: 'dead' }, '— dead'), el('span', { class: 'muted' }, 'as this page saw them'));
}

// a queue's last hour in the list of queues, per minute, as every instance counted it in Redis: drawn from the first
// load of the page
function lastHourChart(queue) {
	const hour = queue.lastHour;
	const total = (kind) => hour[kind].reduce((sum, count) => sum + count, 0);
	const max = Math.max(1, ...hour.completed, ...hour.failed);
	const chart = svg('svg', { class: 'spark', viewBox: '0 0 150 30', preserveAspectRatio: 'none', role: 'img',
		'data-queue': queue.name, 'data-completed': total('completed'), 'data-failed': total('failed') });
	chart.append(svg('title', {}, 'Last hour, per minute: ' + total('completed') + ' completed, ' + total('failed')
		+ ' failed attempts, ' + total('dead') + ' dead'));
	chart.append(line(hour.completed, 150, 30, 4, max, 'completed'), line(hour.failed, 150, 30, 4, max, 'failed'));
	return chart;
}

// paused, not consumed (no live instance runs a listener container on it), both, or running
function queueState(queue) {
	const unconsumed = queue.consumers === 0 ? el('span', { class: 'badge warn not-consumed',
		title: 'No live instance consumes this queue: its jobs wait until one starts a listener container on it' },
	'not consumed') : null;
	if (queue.paused) {
		return [el('span', { class: 'badge paused' }, 'paused'), unconsumed ? ' ' : null, unconsumed];
	}
	return unconsumed || 'running';
}

// the counts Redq keeps in Redis: completed, failed and dead per minute or per hour
function statisticsChart(id, title, buckets) {
	const width = 600;
	const height = 120;
	const max = Math.max(1, ...buckets.map((bucket) => Math.max(bucket.completed, bucket.failed, bucket.dead)));
	const chart = svg('svg', { class: 'chart', id, viewBox: '0 0 ' + width + ' ' + height,
		preserveAspectRatio: 'none', role: 'img' });
	chart.append(svg('title', {}, title));
	chart.append(svg('line', { class: 'axis', x1: 0, y1: height - 1, x2: width, y2: height - 1 }));
	chart.append(svg('text', { x: 2, y: 10 }, String(max)));
	for (const kind of ['completed', 'failed', 'dead']) {
		chart.append(line(buckets.map((bucket) => bucket[kind]), width, height, 14, max, kind));
	}
	const total = (kind) => buckets.reduce((sum, bucket) => sum + bucket[kind], 0);
	return el('figure', {},
		el('figcaption', {}, title + ' (from ' + time(buckets[0].at) + '): ',
			el('span', { class: 'completed', 'data-total': 'completed' }, total('completed') + ' completed'), ', ',
			el('span', { class: 'failed' }, total('failed') + ' failed attempts'), ', ',
			el('span', { class: 'dead' }, total('dead') + ' dead')),
		chart);
}

// ---- views ----

async function overview() {
	const queues = await get('api/queues');
	remember(queues);
	const rows = queues.map((queue) => el('tr', { 'data-queue': queue.name },
		el('td', { class: 'id' }, link(queue.name, 'queue', queue.name, 'ready')),
		el('td', { class: 'num ready' }, queue.ready),
		el('td', { class: 'num delayed' }, queue.delayed),
		el('td', { class: 'num reserved' }, queue.reserved),
		el('td', { class: 'num dead' }, queue.dead > 0 ? link(queue.dead, 'queue', queue.name, 'dead') : '0'),
		el('td', { class: 'num age' }, age(queue.oldestReadyAgeMillis)),
		el('td', { class: 'state' }, queueState(queue)),
		el('td', { class: 'hide-narrow kind' }, queue.handled ? 'handled here'
			: queue.dispatched ? 'dispatched here' : el('span', { class: 'badge warn' }, 'only in Redis')),
		el('td', { class: 'hide-narrow' }, lastHourChart(queue))));
	show(el('h1', {}, 'Queues'),
		queues.length === 0 ? message('No queue yet: no job of this application and none in Redis.') : null,
		el('div', { class: 'table' }, el('table', { id: 'queues' },
			el('thead', {}, el('tr', {}, el('th', {}, 'queue'), el('th', { class: 'num' }, 'ready'),
				el('th', { class: 'num' }, 'delayed'), el('th', { class: 'num' }, 'running'),
				el('th', { class: 'num' }, 'dead'), el('th', { class: 'num' }, 'oldest ready'),
				el('th', {}, 'state'), el('th', { class: 'hide-narrow' }, 'known as'),
				el('th', { class: 'hide-narrow' }, 'last hour'))),
			el('tbody', {}, rows))),
		el('div', { class: 'legend' }, el('span', { class: 'completed' }, '— completed'),
			el('span', { class: 'failed' }, '— failed attempts'),
			el('span', { class: 'muted' }, 'per minute over the last hour, as every instance counted them')));
}

function actionButton(text, action, attributes) {
	if (session.readOnly) {
		return null;
	}
	return el('button', Object.assign({ type: 'button', onclick: async (event) => {
		event.target.disabled = true;
		try {
			const result = await action();
			if (result !== undefined) {
				status(result);
			}
			deadFilterValues.page = null;
			await render();
		}
		catch (error) {
			status(error.message, true);
		}
		finally {
			event.target.disabled = false;
		}
	} }, attributes || {}), text);
}

async function queueView(name, state, offset) {
	state = STATES.includes(state) ? state : 'ready';
	offset = Math.max(0, parseInt(offset || '0', 10) || 0);
	const queue = await get(api('queues', name));
	if (queue === null) {
		show(el('h1', {}, 'Queue not found'), message('No queue named ' + name + '.', true));
		return;
	}
	remember([queue]);
	const shards = shownShards.has(name) ? await get(api('queues', name, 'shards')) : null;
	const statistics = await get(api('queues', name, 'statistics'));
	const filter = state === 'dead' ? deadFilter() : null;
	let page;
	if (state === 'dead' && (filter.job || filter.error)) {
		// a filtered read goes through up to 10,000 dead jobs: made when the filter is applied or after a change, not
		// by every poll
		deadFilterValues.page = deadFilterValues.page || await get(api('queues', name, 'dead') + '?'
			+ new URLSearchParams({ job: filter.job, error: filter.error, limit: 100 }));
		page = deadFilterValues.page;
	}
	else {
		page = await get(api('queues', name, 'jobs') + '?' + new URLSearchParams({ state, offset, count: 20 }));
	}
	const jobs = page.jobs;
	const selectable = state === 'dead' && !session.readOnly;
	const rows = jobs.map((job) => el('tr', { 'data-id': job.id },
		selectable ? el('td', {}, el('input', { type: 'checkbox', class: 'select', value: job.id,
			'aria-label': 'select' })) : null,
		el('td', { class: 'id' }, link(job.id, 'job', name, job.id)),
		el('td', {}, job.job || ''),
		el('td', {}, when(job)),
		el('td', { class: 'num' }, job.attempts),
		el('td', { class: 'hide-narrow' }, firstLine(job.error))));
	const tabs = el('div', { class: 'tabs' }, STATES.map((each) => {
		const tab = link(each + (queue[each] !== undefined ? ' (' + queue[each] + ')' : ''), 'queue', name, each);
		if (each === state) {
			tab.className = 'current';
		}
		return tab;
	}));
	const atHeading = { ready: 'ready since', delayed: 'due', reserved: 'lease until', dead: 'died',
		completed: 'completed' }[state];
	show(el('h1', {}, 'Queue ', el('span', { id: 'queue-name' }, name), ' ',
		queue.paused ? el('span', { class: 'badge paused', id: 'queue-paused' }, 'paused') : null, ' ',
		queue.consumers === 0 ? el('span', { class: 'badge warn', id: 'queue-not-consumed' }, 'not consumed') : null),
	el('div', { class: 'bar' },
		el('span', {}, 'ready ', el('b', { id: 'queue-ready' }, queue.ready)),
		el('span', {}, 'delayed ', el('b', {}, queue.delayed)),
		el('span', {}, 'running ', el('b', { id: 'queue-reserved' }, queue.reserved)),
		el('span', {}, 'dead ', el('b', { id: 'queue-dead' }, queue.dead)),
		el('span', {}, 'oldest ready ', el('b', {}, age(queue.oldestReadyAgeMillis)))),
	shardsSection(name, shards),
	chart(name, 400, 100), legend(),
	statistics ? [statisticsChart('per-minute', 'Per minute, last hour', statistics.minutes),
		statisticsChart('per-hour', 'Per hour, last ' + statistics.hours.length + ' hours', statistics.hours)] : null,
	session.readOnly ? null : el('div', { class: 'bar' },
		queue.paused ? actionButton('Resume', () => post(api('queues', name, 'resume')).then(() => 'Resumed'),
			{ id: 'queue-resume' })
			: actionButton('Pause', () => post(api('queues', name, 'pause')).then(() => 'Paused'),
				{ id: 'queue-pause' }),
		el('input', { id: 'purge-confirm', placeholder: 'type the queue name to purge', 'aria-label': 'confirm purge' }),
		actionButton('Purge', () => post(api('queues', name, 'purge'),
			{ confirm: document.getElementById('purge-confirm').value }).then(() => 'Purged'),
		{ class: 'danger', id: 'queue-purge' })),
	tabs,
	filter ? filter.form(name) : null,
	el('div', { class: 'table' }, el('table', { id: 'jobs' },
		el('thead', {}, el('tr', {}, selectable ? el('th', {}, '') : null, el('th', {}, 'id'), el('th', {}, 'job'),
			el('th', {}, atHeading), el('th', { class: 'num' }, 'attempts'),
			el('th', { class: 'hide-narrow' }, 'last error'))),
		el('tbody', {}, rows))),
	jobs.length === 0 ? el('p', { class: 'muted' }, 'No ' + state + ' jobs.') : null,
	page.total !== undefined ? pager(name, state, offset, page.total) : null,
	page.complete === false ? el('p', { class: 'muted' }, 'More may match: the search reads a bounded number.')
		: null);
}

// the queues whose shards this page shows, on request: each shard's counts are read afresh at every poll
const shownShards = new Set();

// a queue's shards, where each lives (its hash tag, and on a Redis Cluster its slot and master) and its counts; a
// switch that only reads, so no change is sent
function shardsSection(name, shards) {
	const toggle = el('button', { type: 'button', id: 'queue-shards-toggle', onclick: async () => {
		if (shownShards.has(name)) {
			shownShards.delete(name);
		}
		else {
			shownShards.add(name);
		}
		await render();
	} }, shards ? 'Hide shards' : 'Show shards');
	if (!shards) {
		return el('div', { class: 'bar' }, toggle);
	}
	const cluster = shards.some((shard) => shard.master !== null && shard.master !== undefined);
	return el('div', {}, el('div', { class: 'bar' }, toggle),
		el('div', { class: 'table' }, el('table', { id: 'queue-shards' },
			el('thead', {}, el('tr', {}, el('th', { class: 'num' }, 'shard'), el('th', {}, 'hash tag'),
				el('th', { class: 'num' }, 'ready'), el('th', { class: 'num' }, 'delayed'),
				el('th', { class: 'num' }, 'running'), el('th', { class: 'num' }, 'dead'),
				cluster ? el('th', {}, 'master') : null, cluster ? el('th', { class: 'num' }, 'slot') : null)),
			el('tbody', {}, shards.map((shard, index) => el('tr', { 'data-shard': index },
				el('td', { class: 'num' }, index + 1), el('td', { class: 'id tag' }, shard.hashTag),
				el('td', { class: 'num ready' }, shard.ready), el('td', { class: 'num delayed' }, shard.delayed),
				el('td', { class: 'num reserved' }, shard.reserved), el('td', { class: 'num dead' }, shard.dead),
				cluster ? el('td', { class: 'master' }, shard.master || 'no master') : null,
				cluster ? el('td', { class: 'num slot' }, shard.slot) : null))))));
}

function pager(name, state, offset, total) {
	const bar = el('div', { class: 'bar' }, el('span', { class: 'muted' },
		total === 0 ? '' : (offset + 1) + '–' + Math.min(total, offset + 20) + ' of ' + total));
	if (offset > 0) {
		bar.append(link('previous', 'queue', name, state, String(Math.max(0, offset - 20))));
	}
	if (offset + 20 < total) {
		bar.append(link('next', 'queue', name, state, String(offset + 20)));
	}
	return bar;
}

// the dead-job filter and the jobs it found
let deadFilterValues = { job: '', error: '', page: null };

function deadFilter() {
	return {
		job: deadFilterValues.job,
		error: deadFilterValues.error,
		form: (name) => {
			const job = el('input', { id: 'filter-job', placeholder: 'job name', value: deadFilterValues.job,
				'aria-label': 'job name' });
			const error = el('input', { id: 'filter-error', placeholder: 'exception class', value: deadFilterValues.error,
				'aria-label': 'exception class' });
			const selected = () => [...document.querySelectorAll('input.select:checked')].map((box) => ['ids', box.value]);
			// batch after batch, each passing the cutoff of the first: a job retried that dies again is not taken again
			const bulk = (action) => async () => {
				const confirm = document.getElementById('bulk-confirm').value;
				let total = 0;
				let diedBy = null;
				for (;;) {
					const parameters = { job: deadFilterValues.job, error: deadFilterValues.error, confirm };
					if (diedBy !== null) {
						parameters.diedBy = diedBy;
					}
					const result = await post(api('queues', name, 'dead', action), parameters);
					diedBy = result.cutoff;
					total += result.jobs;
					status(action + ': ' + total + ' jobs so far');
					if (!result.more || result.jobs === 0) {
						return action + ': ' + total + ' jobs';
					}
				}
			};
			return el('div', {},
				el('form', { class: 'bar', onsubmit: (event) => {
					event.preventDefault();
					deadFilterValues = { job: job.value.trim(), error: error.value.trim(), page: null };
					render();
				} }, job, error, el('button', { type: 'submit', id: 'filter-go' }, 'Filter')),
				session.readOnly ? null : el('div', { class: 'bar' },
					actionButton('Retry selected', () => post(api('queues', name, 'dead', 'retry'), selected())
						.then((result) => 'Retried ' + result.jobs), { id: 'retry-selected' }),
					actionButton('Delete selected', () => post(api('queues', name, 'dead', 'delete'), selected())
						.then((result) => 'Deleted ' + result.jobs), { id: 'delete-selected', class: 'danger' }),
					el('input', { id: 'bulk-confirm', placeholder: 'type the queue name for all matching',
						'aria-label': 'confirm all matching' }),
					actionButton('Retry all matching', bulk('retry'), { id: 'retry-all' }),
					actionButton('Delete all matching', bulk('delete'), { id: 'delete-all', class: 'danger' })));
		},
	};
}

async function jobView(name, id) {
	const job = await get(api('queues', name, 'job') + '?' + new URLSearchParams({ id }));
	if (job === null) {
		show(el('h1', {}, 'Job ', el('span', { id: 'job-id' }, id)),
			el('p', { id: 'job-state' }, 'Not found: it finished and was not kept, or it was removed.'),
			link('back to queue ' + name, 'queue', name, 'ready'));
		return;
	}
	const envelope = job.envelope;
	const payload = (envelope && typeof envelope === 'object') ? envelope.payload : undefined;
	const fields = [['queue', link(name, 'queue', name, job.state.toLowerCase())], ['state', job.state],
		['job', job.job || ''], [{ DELAYED: 'due', RESERVED: 'lease until', DEAD: 'died', COMPLETED: 'completed',
			READY: 'ready since' }[job.state], when(job)], ['attempts', job.attempts +
			((envelope && envelope.maxAttempts) ? ' of ' + envelope.maxAttempts : '')],
		['lease', job.lease || ''], ['created', envelope && envelope.createdAt ? time(envelope.createdAt) : ''],
		['progress', job.progress ? [job.progress.fraction === null ? '' : Math.round(job.progress.fraction * 100) + '%',
			job.progress.message, job.progress.cursor && 'cursor ' + job.progress.cursor].filter(Boolean).join(' · ') : '']];
	const actions = el('div', { class: 'bar' });
	if (!session.readOnly) {
		const change = (action, extra) => () => post(api('queues', name, 'job', action),
			Object.assign({ id }, extra || {})).then((result) => action + (result.jobs ? ': done' : ': nothing to do'));
		if (job.state === 'DEAD') {
			actions.append(actionButton('Retry', change('retry'), { id: 'job-retry' }),
				actionButton('Delete', change('delete'), { id: 'job-delete', class: 'danger' }));
		}
		if (job.state === 'DELAYED' || job.state === 'READY') {
			const delay = el('input', { id: 'reschedule-seconds', type: 'number', min: 0, value: 60,
				'aria-label': 'seconds from now' });
			actions.append(
				job.state === 'DELAYED' ? actionButton('Trigger now', change('trigger'), { id: 'job-trigger' }) : '',
				actionButton('Cancel', change('cancel'), { id: 'job-cancel', class: 'danger' }),
				delay, actionButton('Reschedule (seconds from now)',
					() => change('reschedule', { delaySeconds: delay.value })(), { id: 'job-reschedule' }));
		}
	}
	show(el('h1', {}, 'Job ', el('span', { id: 'job-id' }, id)),
		el('dl', { id: 'job-fields' }, fields.map(([term, value]) => [el('dt', {}, term),
			el('dd', { 'data-field': term }, value)])),
		actions,
		job.error ? [el('h2', {}, 'Last error'), el('pre', { id: 'job-error' }, job.error)] : null,
		job.stackTrace ? [el('h2', {}, 'Stack trace'), el('pre', { id: 'job-trace' }, job.stackTrace)] : null,
		// the stored result, read up to a few KB
		job.result ? [el('h2', {}, 'Result'), el('p', { class: 'muted', id: 'job-result-size' }, job.result.size
			+ ' bytes of JSON' + (job.result.truncated ? ', the first ' + job.result.json.length + ' characters shown' : '')),
		el('pre', { id: 'job-result' }, job.result.json)] : null,
		payload !== undefined ? [el('h2', {}, 'Payload'),
			el('pre', { id: 'job-payload' }, JSON.stringify(payload, null, 2))] : null,
		envelope !== null ? [el('h2', {}, 'Envelope'), el('pre', { id: 'job-envelope' },
			typeof envelope === 'string' ? envelope : JSON.stringify(envelope, null, 2))] : null);
}

const BATCH_COUNTS = ['total', 'pending', 'succeeded', 'dead', 'cancelled'];

// the batches Redis keeps, newest first, 20 a page
async function batchesView(offset) {
	offset = Math.max(0, parseInt(offset || '0', 10) || 0);
	const page = await get('api/batches?' + new URLSearchParams({ offset, count: 20 }));
	show(el('h1', {}, 'Batches'),
		page.batches.length === 0 && offset === 0
			? message('No batch is kept: none was created, or each ended and expired after its linger.') : null,
		el('div', { class: 'table' }, el('table', { id: 'batches' },
			el('thead', {}, el('tr', {}, el('th', {}, 'batch'), el('th', {}, 'state'),
				BATCH_COUNTS.map((count) => el('th', { class: 'num' }, count)), el('th', {}, 'created'))),
			el('tbody', {}, page.batches.map((batch) => el('tr', { 'data-id': batch.id },
				el('td', { class: 'id' }, link(batch.id, 'batch', batch.id)), el('td', { class: 'state' }, batch.state),
				BATCH_COUNTS.map((count) => el('td', { class: 'num', 'data-count': count }, batch[count])),
				el('td', {}, time(batch.createdAt))))))),
		el('div', { class: 'bar' }, offset > 0 ? link('newer', 'batches', String(Math.max(0, offset - 20))) : null,
			offset + 20 < page.total ? link('older', 'batches', String(offset + 20)) : null));
}

// one batch: its counts, its dead members 20 a page, and its cancellation while it runs
async function batchView(id, deadOffset) {
	deadOffset = Math.max(0, parseInt(deadOffset || '0', 10) || 0);
	const detail = await get(api('batches', id) + '?' + new URLSearchParams({ deadOffset, deadCount: 20 }));
	if (detail === null) {
		show(el('h1', {}, 'Batch ', el('span', { id: 'batch-id' }, id)),
			el('p', { id: 'batch-state' }, 'Not found: it ended and expired after its linger, or it never existed.'),
			link('back to the batches', 'batches'));
		return;
	}
	const batch = detail.batch;
	const running = batch.state === 'CREATING' || batch.state === 'RUNNING';
	show(el('h1', {}, 'Batch ', el('span', { id: 'batch-id' }, id)),
		el('dl', { id: 'batch-fields' }, [['state', batch.state], ['when a member dies', batch.deathPolicy],
			['created', time(batch.createdAt)], ...BATCH_COUNTS.map((count) => [count, batch[count]])]
			.map(([term, value]) => [el('dt', {}, term), el('dd', { 'data-field': term }, value)])),
		running ? el('div', { class: 'bar' }, actionButton('Cancel batch', () => post(api('batches', id, 'cancel'))
			.then((result) => result.jobs ? 'Cancelled: its pending members will not run' : 'The batch had ended'),
		{ id: 'batch-cancel', class: 'danger' })) : null,
		el('h2', {}, 'Dead members'),
		batch.dead === 0 ? el('p', { class: 'muted' }, 'None died.') : el('div', { class: 'table' },
			el('table', { id: 'batch-dead' }, el('thead', {}, el('tr', {}, el('th', {}, 'queue'), el('th', {}, 'job'))),
				el('tbody', {}, detail.deadMembers.map((member) => el('tr', { 'data-id': member.id },
					// a nested batch or chain has no queue: it links to its own page
					!member.queue ? el('td', {}, member.kind.toLowerCase())
						: el('td', {}, link(member.queue, 'queue', member.queue, 'dead')),
					el('td', { class: 'id' }, !member.queue ? link(member.id, member.kind.toLowerCase(), member.id)
						: link(member.id, 'job', member.queue, member.id))))))),
		el('div', { class: 'bar' },
			deadOffset > 0 ? link('previous', 'batch', id, String(Math.max(0, deadOffset - 20))) : null,
			deadOffset + 20 < batch.dead ? link('next', 'batch', id, String(deadOffset + 20)) : null));
}

// the chains Redis keeps, newest first, 20 a page
async function chainsView(offset) {
	offset = Math.max(0, parseInt(offset || '0', 10) || 0);
	const page = await get('api/chains?' + new URLSearchParams({ offset, count: 20 }));
	show(el('h1', {}, 'Chains'),
		page.chains.length === 0 && offset === 0
			? message('No chain is kept: none was created, or each ended and expired after its linger.') : null,
		el('div', { class: 'table' }, el('table', { id: 'chains' },
			el('thead', {}, el('tr', {}, el('th', {}, 'chain'), el('th', {}, 'state'),
				el('th', { class: 'num' }, 'steps'), el('th', { class: 'num' }, 'succeeded'), el('th', {}, 'created'))),
			el('tbody', {}, page.chains.map((chain) => el('tr', { 'data-id': chain.id },
				el('td', { class: 'id' }, link(chain.id, 'chain', chain.id)), el('td', { class: 'state' }, chain.state),
				el('td', { class: 'num', 'data-count': 'steps' }, chain.steps),
				el('td', { class: 'num', 'data-count': 'succeeded' }, chain.succeeded),
				el('td', {}, time(chain.createdAt))))))),
		el('div', { class: 'bar' }, offset > 0 ? link('newer', 'chains', String(Math.max(0, offset - 20))) : null,
			offset + 20 < page.total ? link('older', 'chains', String(offset + 20)) : null));
}

// one chain: its steps in order, why it ended, and its cancellation while it runs
async function chainView(id) {
	const detail = await get(api('chains', id));
	if (detail === null) {
		show(el('h1', {}, 'Chain ', el('span', { id: 'chain-id' }, id)),
			el('p', { id: 'chain-state' }, 'Not found: it ended and expired after its linger, or it never existed.'),
			link('back to the chains', 'chains'));
		return;
	}
	const chain = detail.chain;
	const running = chain.state === 'CREATING' || chain.state === 'RUNNING';
	show(el('h1', {}, 'Chain ', el('span', { id: 'chain-id' }, id)),
		el('dl', { id: 'chain-fields' }, [['state', chain.state], ['reason', chain.reason || ''],
			['created', time(chain.createdAt)], ['steps', chain.steps], ['succeeded', chain.succeeded]]
			.map(([term, value]) => [el('dt', {}, term), el('dd', { 'data-field': term }, value)])),
		running ? el('div', { class: 'bar' }, actionButton('Cancel chain', () => post(api('chains', id, 'cancel'))
			.then((result) => result.jobs ? 'Cancelled: its later steps will not run' : 'The chain had ended'),
		{ id: 'chain-cancel', class: 'danger' })) : null,
		el('h2', {}, 'Steps'),
		el('div', { class: 'table' }, el('table', { id: 'chain-steps' },
			el('thead', {}, el('tr', {}, el('th', { class: 'num' }, 'step'), el('th', {}, 'queue'), el('th', {}, 'job'),
				el('th', {}, 'state'))),
			el('tbody', {}, detail.steps.map((step, index) => el('tr', { 'data-id': step.id },
				// a batch step has no queue: it links to its batch's page
				el('td', { class: 'num' }, index + 1),
				el('td', {}, !step.queue ? 'batch' : link(step.queue, 'queue', step.queue)),
				el('td', { class: 'id' }, !step.queue ? link(step.id, 'batch', step.id)
					: link(step.id, 'job', step.queue, step.id)),
				el('td', { class: 'state' }, step.state)))))));
}

async function recurringView() {
	const jobs = await get('api/recurring');
	const change = (name, action) => () => post('api/recurring/' + encodeURIComponent(name) + '/'
		+ encodeURIComponent(action)).then(() => action + ' ' + name);
	show(el('h1', {}, 'Recurring jobs'),
		jobs.length === 0 ? message('This application schedules no recurring job.') : null,
		el('div', { class: 'table' }, el('table', { id: 'recurring' },
			el('thead', {}, el('tr', {}, el('th', {}, 'job'), el('th', {}, 'queue'), el('th', {}, 'schedule'),
				el('th', {}, 'last run'), el('th', {}, 'next run'), el('th', {}, 'state'), el('th', {}, ''))),
			el('tbody', {}, jobs.map((job) => el('tr', { 'data-name': job.name },
				el('td', { class: 'id' }, job.name), el('td', {}, link(job.queue, 'queue', job.queue, 'ready')),
				el('td', {}, job.schedule), el('td', {}, time(job.lastTick)), el('td', {}, time(job.nextTick)),
				el('td', {}, job.paused ? el('span', { class: 'badge paused' }, 'paused') : 'running'),
				el('td', {}, job.paused ? actionButton('Resume', change(job.name, 'resume'))
					: actionButton('Pause', change(job.name, 'pause')),
				' ', actionButton('Trigger now', change(job.name, 'trigger')))))))));
}

async function instancesView() {
	const instances = await get('api/instances');
	show(el('h1', {}, 'Instances'),
		instances.length === 0 ? message('No instance sent a heartbeat lately.') : null,
		el('div', { class: 'table' }, el('table', { id: 'instances' },
			el('thead', {}, el('tr', {}, el('th', {}, 'instance'), el('th', { class: 'hide-narrow' }, 'host'),
				el('th', {}, 'queues: jobs in flight / concurrency'), el('th', { class: 'hide-narrow' }, 'started'),
				el('th', {}, 'last heartbeat'))),
			el('tbody', {}, instances.map((instance) => el('tr', { 'data-instance': instance.id },
				el('td', { class: 'id' }, instance.application, el('br'), el('small', { class: 'muted' }, instance.id)),
				el('td', { class: 'hide-narrow' }, instance.host + ' (pid ' + instance.pid + ')'),
				el('td', {}, instance.queues.length === 0 ? el('span', { class: 'muted' }, 'none') : el('ul',
					{ class: 'consumed' }, instance.queues.map((queue) => el('li', { 'data-queue': queue.queue },
						link(queue.queue, 'queue', queue.queue, 'ready'), ': ',
						el('span', { class: 'in-flight' }, queue.inFlight), ' / ',
						el('span', { class: 'concurrency' }, queue.concurrency),
						queue.running ? '' : [' ', el('span', { class: 'badge paused' }, 'stopped')])))),
				el('td', { class: 'hide-narrow' }, time(instance.startedAt)),
				el('td', { class: 'heartbeat' }, time(instance.heartbeatAt))))))));
}

async function logView() {
	const actions = await get('api/actions?count=200');
	show(el('h1', {}, 'Changes made here'),
		actions.length === 0 ? message('Nobody changed anything through the dashboard yet.') : null,
		el('div', { class: 'table' }, el('table', { id: 'actions' },
			el('thead', {}, el('tr', {}, el('th', {}, 'when'), el('th', {}, 'who'), el('th', {}, 'action'),
				el('th', {}, 'queue'), el('th', {}, 'what'), el('th', { class: 'num' }, 'jobs'))),
			el('tbody', {}, actions.map((action) => el('tr', {},
				el('td', {}, time(action.at)), el('td', {}, action.principal || 'anonymous'),
				el('td', {}, action.action), el('td', {}, action.queue), el('td', { class: 'id' }, action.target),
				el('td', { class: 'num' }, action.jobs)))))));
}

// the outbox rows that the relay moved aside (only with queue-outbox), a page of 20 after a row id
async function parkedView(afterId) {
	afterId = Math.max(0, parseInt(afterId || '0', 10) || 0);
	const page = await get('api/outbox/parked?' + new URLSearchParams({ afterId, limit: 20 }));
	if (page === null) {
		show(el('h1', {}, 'Parked outbox rows'), message('This application has no outbox.', true));
		return;
	}
	const change = (id, action, done) => () => post('api/outbox/parked/' + encodeURIComponent(id) + '/' + action)
		.then(() => done + ' row ' + id);
	show(el('h1', {}, 'Parked outbox rows'),
		el('p', { class: 'muted' }, 'Rows of the transactional outbox that the relay could not apply to Redis and moved '
			+ 'aside. Re-send puts a row back behind the rows of its queue that wait; re-send one that outlived the '
			+ 're-send window only when its jobs show it was not applied. Discard drops its jobs and timer calls.'),
		page.rows.length === 0 && afterId === 0 ? message('No parked row: the relay applied every row.') : null,
		el('div', { class: 'table' }, el('table', { id: 'parked' },
			el('thead', {}, el('tr', {}, el('th', { class: 'num' }, 'row'), el('th', {}, 'queue'), el('th', {}, 'jobs'),
				el('th', {}, 'parked'), el('th', { class: 'num' }, 'attempts'), el('th', {}, 'reason'),
				el('th', {}, ''))),
			el('tbody', {}, page.rows.map((row) => el('tr', { 'data-id': row.id },
				el('td', { class: 'num id' }, row.id),
				el('td', {}, link(row.queue, 'queue', row.queue, 'ready')),
				el('td', { class: 'jobs' }, (row.jobNames.length > 0 ? row.jobNames.join(', ') : 'timer calls')
					+ ' (' + row.jobCount + ')'),
				el('td', {}, time(row.parkedAt)),
				el('td', { class: 'num' }, row.attempts),
				el('td', { class: 'reason' }, row.reason),
				el('td', {}, actionButton('Re-send', change(row.id, 'resend', 'Re-sent'), { class: 'resend' }), ' ',
					actionButton('Discard', change(row.id, 'discard', 'Discarded'), { class: 'danger discard' }))))))),
		el('div', { class: 'bar' }, afterId > 0 ? link('first page', 'parked') : null,
			page.next !== null ? link('next', 'parked', String(page.next)) : null));
}

let searchState = { by: 'id', text: '', result: null };

async function searchView() {
	const by = el('select', { id: 'search-by', 'aria-label': 'search by' },
		[['id', 'job id or timer key'], ['job', 'job name'], ['error', 'exception class or error text']]
			.map(([value, text]) => el('option', { value, selected: value === searchState.by }, text)));
	const text = el('input', { id: 'search-text', value: searchState.text, placeholder: 'search',
		'aria-label': 'search text', required: true });
	const form = el('form', { class: 'bar', onsubmit: async (event) => {
		event.preventDefault();
		searchState = { by: by.value, text: text.value.trim(), result: null };
		try {
			searchState.result = await get('api/search?' + new URLSearchParams({ by: searchState.by,
				text: searchState.text, limit: 50 }));
			status('');
		}
		catch (error) {
			status(error.message, true);
		}
		searchView();
	} }, by, text, el('button', { type: 'submit', id: 'search-go' }, 'Search'));
	const result = searchState.result;
	show(el('h1', {}, 'Search'), form,
		result ? el('div', { class: 'table' }, el('table', { id: 'search-results' },
			el('thead', {}, el('tr', {}, el('th', {}, 'queue'), el('th', {}, 'id'), el('th', {}, 'state'),
				el('th', {}, 'job'), el('th', { class: 'hide-narrow' }, 'last error'))),
			el('tbody', {}, result.jobs.map((job) => el('tr', { 'data-id': job.id },
				el('td', {}, job.queue), el('td', { class: 'id' }, link(job.id, 'job', job.queue, job.id)),
				el('td', {}, job.state), el('td', {}, job.job || ''),
				el('td', { class: 'hide-narrow' }, firstLine(job.error))))))) : null,
		result && result.jobs.length === 0 ? el('p', { class: 'muted', id: 'search-none' }, 'Nothing found.') : null,
		result && !result.complete ? el('p', { class: 'muted' }, 'Not every job was read: the search is bounded.')
			: null);
}

// ---- routing and polling ----

async function render() {
	const hash = location.hash;
	const parts = hash.replace(/^#\/?/, '').split('/').filter((part) => part !== '')
		.map(decodeURIComponent);
	try {
		if (parts[0] === 'queue' && parts[1]) {
			await queueView(parts[1], parts[2], parts[3]);
		}
		else if (parts[0] === 'job' && parts[1] && parts[2]) {
			await jobView(parts[1], parts.slice(2).join('/'));
		}
		else if (parts[0] === 'batches') {
			await batchesView(parts[1]);
		}
		else if (parts[0] === 'batch' && parts[1]) {
			await batchView(parts[1], parts[2]);
		}
		else if (parts[0] === 'chains') {
			await chainsView(parts[1]);
		}
		else if (parts[0] === 'chain' && parts[1]) {
			await chainView(parts[1]);
		}
		else if (parts[0] === 'instances') {
			await instancesView();
		}
		else if (parts[0] === 'log') {
			await logView();
		}
		else if (parts[0] === 'recurring') {
			await recurringView();
		}
		else if (parts[0] === 'parked') {
			await parkedView(parts[1]);
		}
		else if (parts[0] === 'search') {
			await searchView();
			return;
		}
		else {
			await overview();
		}
		status('Updated ' + new Date().toLocaleTimeString());
	}
	catch (error) {
		status(error.message, true);
	}
	finally {
		// which address the view shows now: a render that began before the address changed marks the one it drew
		document.getElementById('view').dataset.hash = hash;
	}
}

function poll() {
	clearTimeout(timer);
	timer = setTimeout(async () => {
		// a form being filled in, or a selection of jobs, is not redrawn under the user's fingers
		const active = document.activeElement;
		const typing = (active && (active.tagName === 'INPUT' || active.tagName === 'SELECT'))
			|| document.querySelector('input.select:checked') !== null;
		if (!document.hidden && !typing && !location.hash.startsWith('#/search')) {
			await render();
		}
		poll();
	}, POLL_MILLIS);
}

async function start() {
	try {
		session = await get('api/session');
	}
	catch (error) {
		status(error.message, true);
	}
	const mode = document.getElementById('mode');
	mode.textContent = session.readOnly ? 'read-only' : 'read-write';
	mode.className = session.readOnly ? 'badge' : 'badge warn';
	// the outbox's view is there when the application has an outbox
	document.getElementById('nav-parked').hidden = await get('api/outbox').catch(() => null) === null;
	window.addEventListener('hashchange', () => {
		deadFilterValues = { job: '', error: '', page: null };
		render();
	});
	await render();
	poll();
}

start();
