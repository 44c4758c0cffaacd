-- Moves a pending job to a new due time in one step, so that it is never absent or doubled; a job that became ready
-- but has not started counts as pending. ARGV: id, due mode ('d' delay in ms or 'a' epoch ms), due value.
-- Returns 1 when moved, 2 when the job is ready and the new due time has come (it keeps its place in line), 0 when the
-- job is not pending (running, finished, dead or unknown).
local id = ARGV[1]
local now = now_millis()
local due = tonumber(ARGV[3])
if ARGV[2] == 'd' then
	due = now + due
end
if not redis.call('ZSCORE', delayed, id) then
	if not is_ready(id) then
		return 0
	end
	if due <= now then
		return 2
	end
	unready(id)
end
redis.call('HSET', jobs, id, with_available_at(redis.call('HGET', jobs, id), math.max(due, now)))
if due > now then
	schedule(id, due)
else
	redis.call('ZREM', delayed, id)
	redis.call('RPUSH', ready, id)
	signal()
end
return 1
