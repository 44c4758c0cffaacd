-- Counts a queue's jobs in one consistent read: {ready, delayed, reserved, dead}.
return {redis.call('LLEN', ready), redis.call('ZCARD', delayed), redis.call('ZCARD', reserved), redis.call('ZCARD', dead)}
