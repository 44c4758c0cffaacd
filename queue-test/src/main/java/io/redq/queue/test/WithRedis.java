package io.redq.queue.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class one real Redis server, shared by its tests, emptied before each of
 * them and stopped after them.
 * <p>
 * Test methods, constructors and lifecycle methods get it as a {@link RedisServer}
 * parameter. When no Redis can be found, the class is skipped with a message that says
 * how to get one; under the environment variable {@code CI=true} it fails instead. See
 * {@link RedisServerExtension}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServerExtension.class)
public @interface WithRedis {

}
