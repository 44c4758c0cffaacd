-- Moves a pending job to a new due time in one step, so that it is never absent or doubled; a job that became ready
-- but has not started counts as pending. A call that is harmless when re-sent (see remembered in common.lua): a
-- re-sent one moves no job dispatched meanwhile. ARGV: the call's sequence number and re-send window (ms), id, due
-- mode ('d' delay in ms or 'a' epoch ms), due value.
-- A parked job (see Gates in common.lua) counts as pending too.
-- Returns 1 when moved, 2 when the job is ready and the new due time has come (it keeps its place in line), 0 when the
-- job is not pending (running, finished, dead or unknown).
local replied = remembered()
if replied then
	return tonumber(replied)
end
local id = ARGV[3]
local now = now_millis()
local due = tonumber(ARGV[5])
if ARGV[4] == 'd' then
	due = now + due
end
local scheduled = due_of(id)
if not scheduled then
	if not is_ready(id) then
		return tonumber(remember('0'))
	end
	if due <= now then
		return tonumber(remember('2'))
	end
	unready(id)
end
-- a parked job leaves its gate's line: at its new due time it comes to the gate again, and lines up anew if the gate
-- is still held; a ready one woken for a place freed (not admitted yet) passes that place to the next in line
leave_lines(id)
redis.call('HSET', jobs, id, with_available_at(redis.call('HGET', jobs, id), math.max(due, now)))
if due > now then
	schedule(id, due)
else
	redis.call('ZREM', delayed, id)
	make_ready({id}, false)
	signal()
end
return tonumber(remember('1'))
