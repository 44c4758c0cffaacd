package io.redq.docs.actuator;

// tag::security[]
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
// end::security[]

/**
 * The Actuator page's security chain for the {@code redq} endpoint, compiled for the page
 * that quotes it.
 *
 * @author Redq team
 */
// tag::security[]
@Configuration(proxyBeanMethods = false)
class RedqEndpointSecurity {

	@Bean
	@Order(1) // before the application's own chains
	SecurityFilterChain redqEndpointSecurity(HttpSecurity http) throws Exception {
		http.securityMatcher(EndpointRequest.to("redq"))
			.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET)
				.hasAnyRole("OPS", "OPS_ADMIN")
				.anyRequest()
				.hasRole("OPS_ADMIN"))
			.httpBasic(Customizer.withDefaults())
			// called by scripts, which send no CSRF token; a browser that holds the
			// credentials cannot be made to change anything from another site either:
			// every POST needs a JSON body, and a DELETE a CORS preflight
			.csrf((csrf) -> csrf.disable());
		return http.build();
	}

}
// end::security[]
